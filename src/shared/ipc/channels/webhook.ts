/**
 * The webhook side of the RFI feature: the bank's webhook configuration of our credential
 * (GET/PUT /v1/webhook/url) and the local receiver's status (Settings → Webhook).
 */

import { z } from 'zod';
import { channel, event } from '../define';

export const webhookConfigSchema = z.object({
  webhook_name: z.string(),
  webhook_url: z.string(),
  legal_entity_id: z.string(),
  role: z.string(),
  created_at: z.string(),
  updated_at: z.string(),
});

export const receiverStatusSchema = z.object({
  listening: z.boolean(),
  /** The URL the bank should post to, e.g. http://127.0.0.1:41234/webhooks/rfi. */
  url: z.string().nullable(),
  startedAt: z.string().nullable(),
  /** SHA-256 fingerprint (hex pairs) of the pinned public key of the active environment. */
  pinnedKeyFingerprint: z.string().nullable(),
  environmentId: z.string(),
  received: z.number(),
  accepted: z.number(),
  duplicates: z.number(),
  /** Every refused request: bad or missing signature, not an event, too large, wrong path or method, over the connection cap. */
  verificationFailures: z.number(),
  lastEvent: z.object({ id: z.string(), type: z.string(), rfiId: z.string(), at: z.string() }).nullable(),
  lastFailure: z.object({ reason: z.string(), at: z.string() }).nullable(),
  /** What happened when the app pointed the sandbox credential at this receiver. */
  autoConfigure: z
    .object({ state: z.enum(['done', 'failed', 'not_applicable']), message: z.string().nullable() })
    .nullable(),
});
export type ReceiverStatusView = z.infer<typeof receiverStatusSchema>;

export const webhookConfigViewSchema = z.object({
  /** null when it could not be read (see error). */
  config: webhookConfigSchema.nullable(),
  error: z.string().nullable(),
  /** Setting the URL needs the admin role. */
  canSet: z.boolean(),
  /** Why not, in words (viewer credential, not connected…). */
  cannotSetReason: z.string().nullable(),
  receiver: receiverStatusSchema,
});
export type WebhookConfigView = z.infer<typeof webhookConfigViewSchema>;

export const webhookChannels = {
  'webhook.config': channel({
    summary:
      'GET /v1/webhook/url (name, URL, legal entity, role, timestamps), whether it may be set, and the receiver.',
    args: z.undefined(),
    result: webhookConfigViewSchema,
  }),
  'webhook.setUrl': channel({
    summary:
      'PUT /v1/webhook/url (admin only): this app’s receiver, clear, or a URL (https; http only to loopback) the analyst confirms in main’s native dialog.',
    args: z.discriminatedUnion('target', [
      z.strictObject({ target: z.literal('receiver') }),
      z.strictObject({ target: z.literal('clear') }),
      z.strictObject({ target: z.literal('url'), url: z.string().min(1).max(2000) }),
    ]),
    result: webhookConfigViewSchema,
  }),
  'webhook.receiverStatus': channel({
    summary: 'The local webhook receiver: address, counters, last event, verification failures, pinned key.',
    args: z.undefined(),
    result: receiverStatusSchema,
  }),
};

export const webhookEvents = {
  'webhook.receiverChanged': event({
    summary: 'The receiver got an event or refused one, or started/stopped.',
    payload: receiverStatusSchema,
  }),
};
