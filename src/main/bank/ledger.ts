/**
 * The idempotency ledger: one Idempotency-Key per intended operation (a return intent, a crypto
 * order), written to disk with a hash of the body BEFORE the request goes out, so every retry
 * (and a retry after a crash or restart) reuses the key, and a changed body is never sent under
 * an old key.
 *
 * States:
 * - pending: the key is written; the request may or may not have reached the bank. Retrying with
 *   the same key is safe (the bank answers the original result).
 * - succeeded: the bank answered a transaction id. begin() answers it again instead of a new send.
 * - failed: the bank definitively refused (4xx other than 409/429): nothing was created, so the
 *   next begin() of the same operation starts a new attempt with a fresh key.
 *
 * The bank keeps keys for 24 h (docs/api-decisions.md); a pending entry older than that is not resent
 * automatically (the key may be forgotten and a resend could create a second transaction).
 */

import { createHash, randomUUID } from 'node:crypto';
import path from 'node:path';
import { z } from 'zod';
import { AppFailure } from '../../shared/ipc/errors';
import type { AppError } from '../../shared/ipc/errors';
import { keepsIdempotencyKey } from '../../shared/failure-policy';
import { createSerialQueue } from '../infra/durable-file';
import { stateFile } from '../infra/json-store';
import type { AtRestCodec } from '../infra/at-rest';
import type { StateFileFormat } from '../infra/json-store';
import type { Logger } from '../infra/log';

export const operationKinds = ['return_intent', 'crypto_order'] as const;
export type OperationKind = (typeof operationKinds)[number];

const entrySchema = z.object({
  operationId: z.string(),
  kind: z.string(),
  key: z.string(),
  bodyHash: z.string(),
  state: z.enum(['pending', 'succeeded', 'failed']),
  attempt: z.number().int().min(1),
  createdAt: z.string(),
  updatedAt: z.string(),
  transactionId: z.string().nullable(),
  error: z
    .object({
      kind: z.string(),
      message: z.string(),
      reason: z.string().optional(),
      status: z.number().optional(),
    })
    .nullable(),
});
export type LedgerEntry = z.infer<typeof entrySchema>;

const fileSchema = z.object({ version: z.literal(1), entries: z.array(entrySchema) });

const ledgerFormat: StateFileFormat<z.infer<typeof fileSchema>> = {
  label: 'The record of sent operations',
  consequence: 'Operations sent before may not be recognised: check the bank before repeating one.',
  version: 1,
  schema: fileSchema,
  indent: 1,
};

export interface LedgerBegin {
  key: string;
  bodyHash: string;
  state: LedgerEntry['state'];
  /** Set when the operation already succeeded: do not send again. */
  transactionId: string | null;
  /** true when this key was used before (a retry, possibly after a restart). */
  reused: boolean;
  attempt: number;
}

export interface IdempotencyLedger {
  begin(operationId: string, kind: OperationKind, body: unknown): Promise<LedgerBegin>;
  settle(operationId: string, outcome: { transactionId: string } | { error: AppError }): Promise<LedgerEntry>;
  get(operationId: string): LedgerEntry | undefined;
  list(): LedgerEntry[];
  /** Where the ledger lives (tests, diagnostics). */
  readonly file: string;
}

/** Stable JSON: object keys sorted, so the same body always hashes the same. */
export function canonicalJson(value: unknown): string {
  if (value === null || typeof value !== 'object') return JSON.stringify(value) ?? 'null';
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  const entries = Object.entries(value as Record<string, unknown>)
    .filter(([, v]) => v !== undefined)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(',')}}`;
}

export function hashBody(body: unknown): string {
  return createHash('sha256').update(canonicalJson(body)).digest('hex');
}

export interface LedgerOptions {
  dataDir: string;
  log: Logger;
  now?: () => number;
  /** The bank's key retention; pending entries older than this are not resent. Default 24 h. */
  keyRetentionMs?: number;
  /** Settled entries are pruned after this long. Default 30 days. */
  keepSettledMs?: number;
  /**
   * Told when an unreadable ledger was moved aside, with absolute paths (the services report it to
   * the analyst).
   */
  onProblem?(problem: { file: string; movedTo: string | null; message: string }): void;
  /** Seals the ledger (operation ids, targets) at rest. */
  codec?: AtRestCodec;
}

export async function openLedger(options: LedgerOptions): Promise<IdempotencyLedger> {
  const file = path.join(options.dataDir, 'idempotency-ledger.json');
  const now = options.now ?? Date.now;
  const retention = options.keyRetentionMs ?? 24 * 3600_000;
  const keepSettled = options.keepSettledMs ?? 30 * 24 * 3600_000;
  const queue = createSerialQueue();
  const entries = new Map<string, LedgerEntry>();

  // Never silently drop keys: an unreadable ledger is kept aside for inspection and reported.
  const store = stateFile(ledgerFormat, {
    log: options.log,
    ...(options.codec ? { codec: options.codec } : {}),
    ...(options.onProblem ? { report: options.onProblem } : {}),
  });
  const loaded = await store.read(file);
  for (const e of loaded?.value.entries ?? []) entries.set(e.operationId, e);
  // The keychain answered later in the run: the ledger, if it waited for it, is read now (writes
  // waited too, so nothing was written over it meanwhile).
  options.codec?.onSealed(() =>
    queue(async () => {
      const again = await store.read(file);
      for (const e of again?.value.entries ?? []) {
        if (!entries.has(e.operationId)) entries.set(e.operationId, e);
      }
    }),
  );

  const persist = async (): Promise<void> => {
    const cutoff = now() - keepSettled;
    for (const [id, e] of entries) {
      if (e.state !== 'pending' && Date.parse(e.updatedAt) < cutoff) entries.delete(id);
    }
    await store.write(file, { version: 1, entries: [...entries.values()] });
  };

  const iso = (): string => new Date(now()).toISOString();

  return {
    file,
    get: (id) => entries.get(id),
    list: () => [...entries.values()].sort((a, b) => (a.createdAt < b.createdAt ? 1 : -1)),
    begin(operationId, kind, body) {
      return queue(async () => {
        if (!operationId || operationId.length > 200) {
          throw new AppFailure({
            kind: 'local',
            message: 'An operation needs an id of 1 to 200 characters.',
          });
        }
        const bodyHash = hashBody(body);
        const existing = entries.get(operationId);
        if (existing && existing.state !== 'failed') {
          if (existing.kind !== kind || existing.bodyHash !== bodyHash) {
            throw new AppFailure({
              kind: 'local',
              reason: 'IDEMPOTENCY_BODY_CHANGED',
              message:
                'This operation was already sent with different details. It cannot be sent again changed; start a new one instead.',
            });
          }
          if (existing.state === 'pending' && now() - Date.parse(existing.createdAt) > retention) {
            throw new AppFailure({
              kind: 'local',
              reason: 'IDEMPOTENCY_KEY_EXPIRED',
              message:
                'This operation was sent more than a day ago without a clear answer. Check the transactions at the bank before starting it again.',
            });
          }
          return {
            key: existing.key,
            bodyHash,
            state: existing.state,
            transactionId: existing.transactionId,
            reused: true,
            attempt: existing.attempt,
          };
        }
        const entry: LedgerEntry = {
          operationId,
          kind,
          key: `td-${randomUUID()}`,
          bodyHash,
          state: 'pending',
          attempt: (existing?.attempt ?? 0) + 1,
          createdAt: iso(),
          updatedAt: iso(),
          transactionId: null,
          error: null,
        };
        entries.set(operationId, entry);
        try {
          await persist();
        } catch (err) {
          if (existing) entries.set(operationId, existing);
          else entries.delete(operationId);
          throw new AppFailure(
            { kind: 'local', message: 'The operation could not be recorded on disk, so it was not sent.' },
            { cause: err },
          );
        }
        return {
          key: entry.key,
          bodyHash,
          state: 'pending',
          transactionId: null,
          reused: false,
          attempt: entry.attempt,
        };
      });
    },
    settle(operationId, outcome) {
      return queue(async () => {
        const existing = entries.get(operationId);
        if (!existing)
          throw new AppFailure({ kind: 'local', message: `No operation ${operationId} in the ledger.` });
        let next: LedgerEntry;
        if ('transactionId' in outcome) {
          next = {
            ...existing,
            state: 'succeeded',
            transactionId: outcome.transactionId,
            error: null,
            updatedAt: iso(),
          };
        } else {
          const e = outcome.error;
          next = {
            ...existing,
            state: keepsIdempotencyKey(e) ? 'pending' : 'failed',
            error: {
              kind: e.kind,
              message: e.message,
              ...(e.reason !== undefined ? { reason: e.reason } : {}),
              ...(e.status !== undefined ? { status: e.status } : {}),
            },
            updatedAt: iso(),
          };
        }
        entries.set(operationId, next);
        await persist();
        return next;
      });
    },
  };
}
