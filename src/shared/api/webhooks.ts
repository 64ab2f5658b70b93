/**
 * Schemas of webhooks: the credential's webhook configuration, the event body, and the
 * Service-Signature header.
 */

import { z } from 'zod';
import { WEBHOOK_EVENT_TYPES } from '../catalogue';
import { timestampOut, tolerantEnum, msg } from './common';

/** GET /v1/webhook/url (spec 2.7). */
export const WebhookConfig = z.looseObject({
  webhook_name: z.string(),
  webhook_url: z.string(),
  legal_entity_id: z.string(),
  /** Our extension: the legal entity's name (a bank that does not send it names none). */
  legal_entity_name: z.string().max(500).optional(),
  role: tolerantEnum(['admin', 'viewer']),
  created_at: timestampOut,
  updated_at: timestampOut,
});
export type WebhookConfig = z.infer<typeof WebhookConfig>;

export const SetWebhookUrlRequest = z.strictObject({
  webhook_url: z.union(
    [
      z.literal(''),
      z
        .url({ protocol: /^https?$/, error: msg('must be an http(s) URL or "" to clear') })
        .max(2000, 'must be at most 2000 characters'),
    ],
    { error: msg('must be an http(s) URL or "" to clear') },
  ),
});

/** Webhook event body (thin: receivers re-read the RFI). */
export const WebhookEvent = z.looseObject({
  id: z.string(),
  type: tolerantEnum(WEBHOOK_EVENT_TYPES),
  created_at: timestampOut,
  data: z.looseObject({
    rfi_id: z.string(),
    question_id: z.string().optional(),
    status: z.string(),
  }),
});
export type WebhookEvent = z.infer<typeof WebhookEvent>;

/** Header carrying the signature: `t=<unix seconds>,v1=<base64 DER ECDSA P-256/SHA-256>`. */
export const SIGNATURE_HEADER = 'Service-Signature';

export function parseSignatureHeader(h: string): { t: number; v1: string[] } | null {
  let t: number | null = null;
  const v1: string[] = [];
  for (const part of h.split(',')) {
    const eq = part.indexOf('=');
    if (eq < 0) return null;
    const k = part.slice(0, eq).trim();
    const v = part.slice(eq + 1).trim();
    if (k === 't') {
      if (!/^[0-9]{1,12}$/.test(v)) return null;
      t = Number.parseInt(v, 10);
    } else if (k === 'v1') v1.push(v);
  }
  return t === null || v1.length === 0 ? null : { t, v1 };
}
