/**
 * What the webhook service shows: one profile's route, key and mode (the entity watch's entity list), and
 * the bank's webhook configuration of the active credential (Settings → Webhook).
 */

import type { ReceiverStatusView, WebhookConfigView } from '../../shared/ipc/channels/webhook';
import { AppFailure } from '../../shared/ipc/errors';
import type { BankClient } from '../bank/client';
import type { Logger } from '../infra/log';
import type { RouteCounters } from './receiver-routes';
import { maskRouteUrl } from './route-mask';
import { keyFingerprint } from './signature';
import type { PinnedKey } from './webhook-keys';
import type { AutoState } from './webhook-members';

/** How one profile's events reach the entity watch (the entity watch's entity list says it). */
export interface ProfileWebhookState {
  profileId: string;
  /** This profile's route (null: not listening). */
  url: string | null;
  pinnedKeyFingerprint: string | null;
  autoConfigure: AutoState;
  /**
   * 'webhook': the bank is known to post this profile's events to its route (pointed by this app,
   * or events arrived); 'polling': polling only as far as this app knows (polling always runs).
   */
  mode: 'webhook' | 'polling';
  /** Why polling only, or where events go. */
  reason: string | null;
  counters: RouteCounters | null;
}

/** Whether a profile's events come by webhook or by polling only, and why. */
function modeOf(
  url: string | null,
  k: PinnedKey,
  auto: AutoState,
  accepted: number,
): Pick<ProfileWebhookState, 'mode' | 'reason'> {
  if (!url) return { mode: 'polling', reason: 'The local webhook receiver is not listening.' };
  if (!k.key) {
    return {
      mode: 'polling',
      reason: k.problem
        ? `The pinned webhook key cannot be used: ${k.problem}`
        : 'No webhook signing key is pinned for this environment.',
    };
  }
  if (auto?.state === 'failed') return { mode: 'polling', reason: auto.message };
  if (auto?.state === 'done') return { mode: 'webhook', reason: auto.message };
  if (accepted > 0) return { mode: 'webhook', reason: `Signed events arrive at ${url}.` };
  // Nothing says the bank posts here: polling is what keeps this entity current.
  return {
    mode: 'polling',
    reason: `Polling; signed events are taken at ${url} once the bank is pointed there.`,
  };
}

export function profileWebhookState(
  profileId: string,
  url: string | null,
  key: PinnedKey,
  auto: AutoState,
  counters: RouteCounters | null,
): ProfileWebhookState {
  return {
    profileId,
    url,
    pinnedKeyFingerprint: key.key ? keyFingerprint(key.key) : null,
    autoConfigure: auto,
    ...modeOf(url, key, auto, counters?.accepted ?? 0),
    counters,
  };
}

/** The bank's webhook configuration of a credential, as Settings shows it (route URLs masked). */
export async function readWebhookConfig(
  bank: Pick<BankClient, 'getWebhookConfig'>,
  receiver: () => ReceiverStatusView,
  log: Logger,
): Promise<WebhookConfigView> {
  try {
    const c = await bank.getWebhookConfig();
    const admin = c.role === 'admin';
    return {
      config: {
        webhook_name: c.webhook_name,
        webhook_url: maskRouteUrl(c.webhook_url),
        legal_entity_id: c.legal_entity_id,
        role: c.role,
        created_at: c.created_at,
        updated_at: c.updated_at,
      },
      error: null,
      canSet: admin,
      cannotSetReason: admin
        ? null
        : `This credential's role is ${c.role}: only an admin credential may set the webhook URL.`,
      receiver: receiver(),
    };
  } catch (err) {
    const message =
      err instanceof AppFailure && err.kind === 'not_found'
        ? 'This bank does not offer GET /v1/webhook/url (the spec has it in sandbox and development environments only).'
        : err instanceof AppFailure
          ? err.message
          : 'The webhook configuration could not be read.';
    if (!(err instanceof AppFailure)) log.error('webhook: config read failed', { error: err });
    return {
      config: null,
      error: message,
      canSet: false,
      cannotSetReason: 'The configuration could not be read from the bank.',
      receiver: receiver(),
    };
  }
}
