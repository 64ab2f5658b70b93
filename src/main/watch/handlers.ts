import type { Handlers } from '../ipc/dispatcher';
import type { EntityWatch } from './entity-watch';

type ReminderChannels = 'reminders.snooze' | 'reminders.unsnooze' | 'reminders.snoozes' | 'reminders.dueSoon';

/** Deadline reminders of the entity watch: snoozes per RFI and the "due soon" list. */
export function remindersHandlers(
  entityWatch: Pick<EntityWatch, 'reminders'>,
): Pick<Handlers, ReminderChannels> {
  return {
    'reminders.snooze': async ({ rfiId, choice }) => (await entityWatch.reminders()).snooze(rfiId, choice),
    'reminders.unsnooze': async ({ rfiId }) => ({
      rfiId,
      cancelled: await (await entityWatch.reminders()).unsnooze(rfiId),
    }),
    'reminders.snoozes': async () => ({ snoozes: await (await entityWatch.reminders()).snoozes() }),
    'reminders.dueSoon': async () => (await entityWatch.reminders()).dueSoon(),
  };
}
