import type { Handlers } from '../ipc/dispatcher';
import type { Desk } from './desk';

type ReminderChannels = 'reminders.snooze' | 'reminders.unsnooze' | 'reminders.snoozes' | 'reminders.dueSoon';

/** Deadline reminders of the consolidated desk: snoozes per RFI and the "due soon" list. */
export function remindersHandlers(desk: Pick<Desk, 'reminders'>): Pick<Handlers, ReminderChannels> {
  return {
    'reminders.snooze': async ({ rfiId, choice }) => (await desk.reminders()).snooze(rfiId, choice),
    'reminders.unsnooze': async ({ rfiId }) => ({
      rfiId,
      cancelled: await (await desk.reminders()).unsnooze(rfiId),
    }),
    'reminders.snoozes': async () => ({ snoozes: await (await desk.reminders()).snoozes() }),
    'reminders.dueSoon': async () => (await desk.reminders()).dueSoon(),
  };
}
