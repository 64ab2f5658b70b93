import type { z } from 'zod';
import { sessionChannels, sessionEvents } from './channels/session';
import { settingsChannels, settingsEvents } from './channels/settings';
import { vaultChannels } from './channels/vault';
import { auditChannels, auditEvents } from './channels/audit';
import { cryptoChannels, cryptoEvents } from './channels/crypto';
import { returnsChannels, returnsEvents } from './channels/returns';
import { rfiAnswersChannels, rfiAnswersEvents } from './channels/rfi-answers';
import { rfisChannels, rfisEvents } from './channels/rfis';
import { webhookChannels, webhookEvents } from './channels/webhook';
import { lockerChannels, lockerEvents } from './channels/locker';
import { caseFilesChannels } from './channels/case-files';
import { desktopChannels, desktopEvents } from './channels/desktop';
import { remindersChannels, remindersEvents } from './channels/reminders';
import { teamChannels, teamEvents } from './channels/team';
import { teamApprovalsChannels, teamApprovalsEvents } from './channels/team-approvals';
import { teamShareChannels, teamShareEvents } from './channels/team-share';
import { teamReturnsChannels } from './channels/team-returns';
import { teamMandatesChannels } from './channels/team-mandates';

/**
 * Every renderer → main call. A feature adds its channels in channels/<feature>.ts and spreads
 * them here; test/repo/ipc-surface.test.ts snapshots the result so review sees every change.
 */
export const channels = {
  ...sessionChannels,
  ...settingsChannels,
  ...vaultChannels,
  ...auditChannels,
  ...cryptoChannels,
  ...returnsChannels,
  ...rfiAnswersChannels,
  ...rfisChannels,
  ...webhookChannels,
  ...lockerChannels,
  ...caseFilesChannels,
  ...desktopChannels,
  ...remindersChannels,
  ...teamChannels,
  ...teamApprovalsChannels,
  ...teamShareChannels,
  ...teamReturnsChannels,
  ...teamMandatesChannels,
} as const;

/** Every main → renderer push event. */
export const events = {
  ...sessionEvents,
  ...settingsEvents,
  ...auditEvents,
  ...cryptoEvents,
  ...returnsEvents,
  ...rfiAnswersEvents,
  ...rfisEvents,
  ...webhookEvents,
  ...lockerEvents,
  ...desktopEvents,
  ...remindersEvents,
  ...teamEvents,
  ...teamApprovalsEvents,
  ...teamShareEvents,
} as const;

export type Channels = typeof channels;
export type Events = typeof events;
export type ChannelName = keyof Channels;
export type EventName = keyof Events;

/** What the renderer passes (before parsing). */
export type ChannelArgs<C extends ChannelName> = z.input<Channels[C]['args']>;
/** What a handler receives (after parsing). */
export type ParsedArgs<C extends ChannelName> = z.output<Channels[C]['args']>;
export type ChannelResult<C extends ChannelName> = z.output<Channels[C]['result']>;
export type EventPayload<E extends EventName> = z.output<Events[E]['payload']>;

export const channelNames = Object.keys(channels) as ChannelName[];
export const eventNames = Object.keys(events) as EventName[];

export function isChannelName(value: unknown): value is ChannelName {
  return typeof value === 'string' && Object.prototype.hasOwnProperty.call(channels, value);
}

export function isEventName(value: unknown): value is EventName {
  return typeof value === 'string' && Object.prototype.hasOwnProperty.call(events, value);
}
