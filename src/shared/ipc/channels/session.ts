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
      /** The legal entity by the bank's name (its webhook configuration, else the embedded sandbox's fixtures); null: the bank names none. */
      legalEntityName: z.string().nullable(),
      role: z.string(),
    })
    .nullable(),
  /** Why the connection is not 'connected', in words an analyst can read. */
  problem: z.string().nullable(),
  checkedAt: z.string(),
  /**
   * Since when the connection has been in its present state other than 'connected' (ISO 8601; the
   * first failure, kept across retries); null while connected.
   */
  since: z.string().nullable(),
  /** When main will check the bank again on its own (ISO 8601); null when no retry is scheduled. */
  retryAt: z.string().nullable(),
  /** The OS keychain cannot be used: tokens live in memory for this run (words for the analyst). */
  keychainProblem: z.string().nullable(),
});

export type SessionStatus = z.infer<typeof sessionStatusSchema>;
export type ConnectionState = z.infer<typeof connectionStateSchema>;

export const sandboxCredentialChoiceSchema = z.enum(['a-admin', 'a-viewer', 'b-admin']);

export const sandboxCredentialsSchema = z.object({
  /** Whether the active environment is the embedded sandbox (the switch works only then). */
  available: z.boolean(),
  current: sandboxCredentialChoiceSchema,
  options: z.array(
    z.object({
      id: sandboxCredentialChoiceSchema,
      legalEntityId: z.string(),
      legalEntityName: z.string(),
      role: z.string(),
    }),
  ),
});

export const clockStatusSchema = z.object({
  /** Server time now (ISO 8601) as estimated from the bank's Date headers. */
  serverNow: z.string(),
  /** Server − local, in ms. */
  offsetMs: z.number(),
  /** Half-width of the estimate's uncertainty in ms; null before the first answer. */
  uncertaintyMs: z.number().nullable(),
  samples: z.number(),
});

/** Progress of reading a just-created transaction through the 404 window (docs/api-decisions.md). */
export const transactionProgressSchema = z.object({
  transactionId: z.string(),
  state: z.enum(['processing', 'still_processing', 'visible', 'failed']),
  attempts: z.number(),
  elapsedMs: z.number(),
  message: z.string().nullable(),
});
export type TransactionProgress = z.infer<typeof transactionProgressSchema>;

export const sessionChannels = {
  'session.status': channel({
    summary: 'The active environment and the credential the bank reports for our token (re-checked).',
    args: noArgs,
    result: sessionStatusSchema,
  }),
  'session.sandboxCredentials': channel({
    summary: 'Embedded sandbox only: which seeded credential is in use and which can be chosen.',
    args: noArgs,
    result: sandboxCredentialsSchema,
  }),
  'session.useSandboxCredential': channel({
    summary:
      'Embedded sandbox only: switch to legal entity A admin, A viewer or B admin (stored via the vault).',
    args: z.strictObject({ credential: sandboxCredentialChoiceSchema }),
    result: sessionStatusSchema,
  }),
  'session.clock': channel({
    summary: 'Server time as estimated from the bank’s Date headers, and the local offset.',
    args: noArgs,
    result: clockStatusSchema,
  }),
};

export const sessionEvents = {
  'session.changed': event({
    summary: 'The connection state or credential changed.',
    payload: sessionStatusSchema,
  }),
  'transaction.progress': event({
    summary:
      'A just-created transaction is being read through the bank’s 404 window (processing, still processing, visible).',
    payload: transactionProgressSchema,
  }),
};
