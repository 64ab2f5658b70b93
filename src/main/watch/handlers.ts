import type { Handlers } from '../ipc/dispatcher';
import type { EntityWatch } from './entity-watch';

type ReminderChannels = 'reminders.snooze' | 'reminders.unsnooze' | 'reminders.snoozes' | 'reminders.dueSoon';

/** Deadline reminders of the entity watch: snoozes per RFI and the "due soon" list. */
export function remindersHandlers(
  entityWatch: Pick<EntityWatch, 'reminders' | 'watchedMember'>,
): Pick<Handlers, ReminderChannels> {
  return {
    // The named profile's RFI only (an unknown or unwatched profile is refused by name).
    'reminders.snooze': async ({ profileId, rfiId, choice }) =>
      (await entityWatch.reminders()).snooze(entityWatch.watchedMember(profileId).profileId, rfiId, choice),
    'reminders.unsnooze': async ({ profileId, rfiId }) => ({
      profileId,
      rfiId,
      cancelled: await (
        await entityWatch.reminders()
      ).unsnooze(entityWatch.watchedMember(profileId).profileId, rfiId),
    }),
    'reminders.snoozes': async () => ({ snoozes: await (await entityWatch.reminders()).snoozes() }),
    'reminders.dueSoon': async () => (await entityWatch.reminders()).dueSoon(),
  };
}
