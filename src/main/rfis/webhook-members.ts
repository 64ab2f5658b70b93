/**
 * Who the webhook routes serve: the active profile and every profile the entity watch watches, each with
 * its own session, bank client and RFI service. Shared by the webhook service's parts.
 */

import type { ReceiverStatusView } from '../../shared/ipc/channels/webhook';
import type { BankClient } from '../bank/client';
import type { RfiService, RfiSession } from './service';

/** A profile the entity watch watches besides the active one: its own session, bank client and RFI service. */
export interface WatchedWebhookProfile {
  profileId: string;
  session: RfiSession;
  bank: BankClient;
  rfis: RfiService;
}

/** A profile a route serves now (the active one wins over a watcher). */
export interface WebhookMember extends WatchedWebhookProfile {
  active: boolean;
}

/** Whether this app pointed the bank at a profile's route, and what it says. */
export type AutoState = ReceiverStatusView['autoConfigure'];
