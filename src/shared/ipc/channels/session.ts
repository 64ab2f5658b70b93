import { z } from 'zod';
import { channel, event, noArgs } from '../define';

/** Where the app talks to: the embedded sandbox or a bank base URL. */
export const environmentSchema = z.object({
  id: z.string(),
  name: z.string(),
  kind: z.enum(['embedded-sandbox', 'remote']),
  baseUrl: z.string(),
});

export const connectionStateSchema = z.enum([
  /** The bank answered with our credential's configuration. */
  'connected',
  /** No token is stored for this environment. */
  'no_token',
  /** The bank refused the token (401). */
  'unauthenticated',
  /** The bank could not be reached. */
  'offline',
  /** Anything else (a server error, a malformed answer). */
  'error',
]);

export const sessionStatusSchema = z.object({
  environment: environmentSchema,
  connection: connectionStateSchema,
  /** From GET /v1/webhook/url when connected. */
  credential: z
    .object({
      webhookName: z.string(),
      legalEntityId: z.string(),
      role: z.string(),
    })
    .nullable(),
  /** Why the connection is not 'connected', in words an analyst can read. */
  problem: z.string().nullable(),
  checkedAt: z.string(),
});

export type SessionStatus = z.infer<typeof sessionStatusSchema>;
export type ConnectionState = z.infer<typeof connectionStateSchema>;

export const sessionChannels = {
  'session.status': channel({
    summary: 'The active environment and the credential the bank reports for our token (re-checked).',
    args: noArgs,
    result: sessionStatusSchema,
  }),
};

export const sessionEvents = {
  'session.changed': event({
    summary: 'The connection state or credential changed.',
    payload: sessionStatusSchema,
  }),
};
