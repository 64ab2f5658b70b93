import { useId, useState } from 'react';
import type { FormEvent } from 'react';
import { X } from 'lucide-react';
import { reminderHoursSchema } from '../../../../shared/ipc/channels/settings';
import type { ReminderSettings } from '../../../../shared/ipc/channels/settings';
import {
  DEFAULT_REMINDER_HOURS,
  MAX_REMINDER_THRESHOLDS,
  sortedThresholds,
  thresholdLabel,
} from '../../../../shared/reminder-rules';
import { Button, IconButton, Select, Switch, TextField } from '../../components/ui';
import { call } from '../../lib/desk';
import { useSettings } from './store';

const UNITS = [
  { value: 'hours', label: 'hours' },
  { value: 'days', label: 'days' },
];

/** The thresholds the analyst asks for, checked by the same schema main checks them with. */
export function proposeThresholds(
  current: readonly number[],
  count: string,
  unit: string,
): { hours: number[] } | { error: string } {
  const n = Number(count.trim());
  if (count.trim() === '' || !Number.isInteger(n)) return { error: 'Enter a whole number.' };
  const h = unit === 'days' ? n * 24 : n;
  if (current.includes(h)) return { error: `There is already a reminder ${thresholdLabel(h)} before.` };
  const r = reminderHoursSchema.safeParse([...current, h]);
  if (!r.success) {
    const issue = r.error.issues[0];
    return { error: issue ? `Thresholds ${issue.message}.` : 'Not a valid threshold.' };
  }
  return { hours: sortedThresholds(r.data) };
}

/**
 * Settings → Deadline reminders: on or off, and when (hours or days before an RFI's timeout, on
 * the bank's clock). Main checks the values again and applies them at once, without a restart; a
 * reminder already shown for an RFI is never shown again because the thresholds changed.
 */
export function RemindersPanel() {
  const reminders = useSettings((s) => s.view?.reminders);
  const busy = useSettings((s) => s.busy);
  const run = useSettings((s) => s.run);
  const [count, setCount] = useState('');
  const [unit, setUnit] = useState('hours');
  const [error, setError] = useState<string | null>(null);
  const limitsId = useId();
  if (!reminders) return null;

  const save = (patch: Partial<ReminderSettings>, notice: string) =>
    run('reminders', () => call('settings.update', { reminders: patch }), notice);

  const add = async (e: FormEvent) => {
    e.preventDefault();
    const p = proposeThresholds(reminders.hours, count, unit);
    if ('error' in p) {
      setError(p.error);
      return;
    }
    setError(null);
    if (await save({ hours: p.hours }, 'Reminder thresholds saved.')) setCount('');
  };
  const full = reminders.hours.length >= MAX_REMINDER_THRESHOLDS;
  const isDefault =
    reminders.hours.length === DEFAULT_REMINDER_HOURS.length &&
    reminders.hours.every((h, i) => h === DEFAULT_REMINDER_HOURS[i]);

  return (
    <div className="reminders-panel">
      <Switch
        isSelected={reminders.enabled}
        isDisabled={busy !== null}
        onChange={(on) =>
          void save({ enabled: on }, on ? 'Deadline reminders on.' : 'Deadline reminders off.')
        }
      >
        Remind me before an RFI awaiting action times out
      </Switch>
      <p className="muted">
        Times follow the bank’s clock. Each reminder is shown once per RFI; an RFI can be snoozed from its
        page. The overview’s “Due soon” list looks as far ahead as the earliest reminder.
      </p>
      <ul
        className="reminders-panel__list"
        aria-label="Reminder thresholds"
        data-testid="reminder-thresholds"
      >
        {reminders.hours.map((h) => (
          <li key={h} data-hours={h}>
            <span>{thresholdLabel(h)} before the timeout</span>
            <IconButton
              label={`Remove the reminder ${thresholdLabel(h)} before the timeout`}
              icon={<X size={14} />}
              isDisabled={busy !== null || reminders.hours.length <= 1}
              onPress={() =>
                void save({ hours: reminders.hours.filter((x) => x !== h) }, 'Reminder thresholds saved.')
              }
            />
          </li>
        ))}
      </ul>
      <form className="reminders-panel__add" onSubmit={(e) => void add(e)} aria-label="Add a reminder">
        <TextField
          label="Remind me"
          value={count}
          onChange={(v) => {
            setCount(v);
            setError(null);
          }}
          inputMode="numeric"
          aria-describedby={limitsId}
          isInvalid={!!error}
          errorMessage={error}
          isDisabled={full}
        />
        <Select label="Unit" options={UNITS} value={unit} onChange={setUnit} isDisabled={full} />
        <Button type="submit" isDisabled={busy !== null || full || count.trim() === ''}>
          Add reminder
        </Button>
      </form>
      <p className="muted" id={limitsId}>
        {full
          ? `At most ${MAX_REMINDER_THRESHOLDS} reminders: remove one to add another.`
          : `Up to ${MAX_REMINDER_THRESHOLDS} reminders, each 1 hour to 29 days before the timeout.`}
      </p>
      {!isDefault && (
        <Button
          variant="ghost"
          size="sm"
          isDisabled={busy !== null}
          onPress={() => void save({ hours: [...DEFAULT_REMINDER_HOURS] }, 'Reminder thresholds reset.')}
        >
          Back to 7 days, 48 hours and 24 hours
        </Button>
      )}
    </div>
  );
}
