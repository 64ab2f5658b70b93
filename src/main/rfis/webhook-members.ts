/**
 * Who the webhook routes serve: every profile the entity watch watches (the default profile is
 * one of them), each with its own session, bank client, clock and RFI service. Shared by the
 * webhook service's parts.
 */

import type { ReceiverStatusView } from '../../shared/ipc/channels/webhook';
import type { BankClient } from '../bank/client';
import type { ServerClock } from '../bank/clock';
import type { RfiService, RfiSession } from './service';

/** A profile the entity watch watches: its own session, bank client, clock and RFI service. */
export interface WatchedWebhookProfile {
  profileId: string;
  session: RfiSession;
  bank: BankClient;
  /** This profile's bank clock: its route checks signature times against it. */
  clock: ServerClock;
  rfis: RfiService;
}

/** A profile a route serves now. */
export type WebhookMember = WatchedWebhookProfile;

/** Whether this app pointed the bank at a profile's route, and what it says. */
export type AutoState = ReceiverStatusView['autoConfigure'];
