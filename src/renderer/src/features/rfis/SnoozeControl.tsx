import { useState } from 'react';
import { Menu, MenuItem, MenuTrigger, Popover } from 'react-aria-components';
import { BellOff, BellRing } from 'lucide-react';
import type { SnoozeView } from '../../../../shared/ipc/channels/reminders';
import { SNOOZE_CHOICES, SNOOZE_CHOICE_LABELS } from '../../../../shared/reminder-rules';
import type { SnoozeChoice } from '../../../../shared/reminder-rules';
import { Button } from '../../components/ui';
import { useNow } from '../../components/ui/clock';
import { describeDate } from '../../lib/dates';
import { errorMessage } from '../../lib/desk';
import { useSubscription } from '../../lib/events';
import { snoozeKey, snoozeSubscription, useSnoozes } from './snooze-store';

const CHOICE_HINTS: Record<SnoozeChoice, string> = {
  '1d': 'Quiet for a day of bank time',
  '3d': 'Quiet for three days of bank time',
  '7d': 'Quiet for a week of bank time',
  last: 'Only the last reminder before the timeout',
};

/** "in 23h", with the absolute date and time as the title: when the reminders resume. */
function ResumeTime({ snooze, label }: { snooze: SnoozeView; label: string }) {
  const tick = useNow();
  const d = describeDate(snooze.until, tick + snooze.offsetMs);
  if (!d) return null;
  return (
    <time dateTime={d.iso} title={`${label} ${d.absolute} (bank time)`}>
      {d.relative}
    </time>
  );
}

/**
 * A bell-off mark for a queue row whose RFI's reminders are snoozed, with until when. The queue
 * holds the snooze subscription for all its rows.
 */
export function SnoozedMark({ rfiId, profileId }: { rfiId: string; profileId: string | undefined }) {
  const snooze = useSnoozes((s) => s.byKey[snoozeKey(profileId, rfiId)]);
  if (!snooze) return null;
  // The space after the mark keeps the next word a word of its own (capitalised, wrapped).
  return (
    <>
      <span className="rfi-snoozed" data-testid="rfi-snoozed-mark">
        <BellOff size={12} aria-hidden="true" />
        <span>
          <span className="ui-visually-hidden">Reminders snoozed: they resume </span>
          <ResumeTime snooze={snooze} label="Reminders snoozed until" />
        </span>
      </span>{' '}
    </>
  );
}

/**
 * Snooze an RFI's deadline reminders, through the profile that owns it (the RFI detail, for an RFI awaiting action with a running
 * deadline): a menu of fixed choices; main computes the end on the owning entity's bank clock and
 * never lets it run past the last reminder.
 */
export function SnoozeControl({ rfiId, profileId }: { rfiId: string; profileId: string }) {
  useSubscription(snoozeSubscription);
  const snooze = useSnoozes((s) => s.byKey[snoozeKey(profileId, rfiId)]);
  const [busy, setBusy] = useState(false);
  const [problem, setProblem] = useState<string | null>(null);
  const [notice, setNotice] = useState<string | null>(null);

  const choose = (choice: SnoozeChoice): void => {
    setBusy(true);
    setProblem(null);
    setNotice(null);
    useSnoozes
      .getState()
      .snooze(profileId, rfiId, choice)
      .then(
        (v) =>
          setNotice(
            v.capped
              ? 'Reminders snoozed until the last reminder before the timeout (the choice ran past it).'
              : 'Reminders snoozed.',
          ),
        (err: unknown) => setProblem(`Not snoozed: ${errorMessage(err)}`),
      )
      .finally(() => setBusy(false));
  };
  const cancel = (): void => {
    setBusy(true);
    setProblem(null);
    setNotice(null);
    useSnoozes
      .getState()
      .cancel(profileId, rfiId)
      .then(
        () => setNotice('Snooze cancelled: reminders come again.'),
        (err: unknown) => setProblem(`Not cancelled: ${errorMessage(err)}`),
      )
      .finally(() => setBusy(false));
  };

  return (
    <div className="rfi-snooze" role="group" aria-label="Deadline reminders" data-testid="rfi-snooze">
      {snooze ? (
        <p className="rfi-snooze__state" data-testid="rfi-snooze-state">
          <BellOff size={14} aria-hidden="true" />
          <span>
            Reminders snoozed: they resume <ResumeTime snooze={snooze} label="Reminders resume" />
            {snooze.capped ? ', at the last reminder before the timeout.' : '.'}
          </span>
        </p>
      ) : (
        <p className="rfi-snooze__state muted" data-testid="rfi-snooze-state">
          <BellRing size={14} aria-hidden="true" />
          <span>Reminders not snoozed.</span>
        </p>
      )}
      <MenuTrigger>
        <Button size="sm" isDisabled={busy}>
          {snooze ? 'Snooze for another time' : 'Snooze reminders'}
        </Button>
        <Popover className="ui-popover" offset={4} placement="bottom start">
          <Menu className="ui-listbox" onAction={(key) => choose(String(key) as SnoozeChoice)}>
            {SNOOZE_CHOICES.map((c) => (
              <MenuItem key={c} id={c} textValue={SNOOZE_CHOICE_LABELS[c]} className="ui-listbox__item">
                <span className="ui-listbox__text">
                  <span>{SNOOZE_CHOICE_LABELS[c]}</span>
                  <span className="ui-listbox__hint">{CHOICE_HINTS[c]}</span>
                </span>
              </MenuItem>
            ))}
          </Menu>
        </Popover>
      </MenuTrigger>
      {snooze && (
        <Button size="sm" variant="ghost" onPress={cancel} isDisabled={busy}>
          Cancel snooze
        </Button>
      )}
      <span className="rfi-snooze__messages" aria-live="polite">
        {notice}
      </span>
      {problem && (
        <p role="alert" className="field-error">
          {problem}
        </p>
      )}
    </div>
  );
}
