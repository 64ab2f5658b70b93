import type { Handlers } from '../ipc/dispatcher';
import type { ServiceCore } from '../core';

type ReminderChannels = 'reminders.snooze' | 'reminders.unsnooze' | 'reminders.snoozes' | 'reminders.dueSoon';

/** Deadline reminders of the consolidated desk: snoozes per RFI and the "due soon" list. */
export function remindersHandlers(core: ServiceCore): Pick<Handlers, ReminderChannels> {
  return {
    'reminders.snooze': async ({ rfiId, choice }) => (await core.desk.reminders()).snooze(rfiId, choice),
    'reminders.unsnooze': async ({ rfiId }) => ({
      rfiId,
      cancelled: await (await core.desk.reminders()).unsnooze(rfiId),
    }),
    'reminders.snoozes': async () => ({ snoozes: await (await core.desk.reminders()).snoozes() }),
    'reminders.dueSoon': async () => (await core.desk.reminders()).dueSoon(),
  };
}
