/**
 * The local audit log: an append-only record (one JSON line per entry, fsynced) of every write the
 * analyst made — when, who (the credential as the bank reported it), which environment, the
 * operation, its idempotency key, the target and the outcome. Entries are never edited or
 * removed; a line that cannot be parsed (a torn write after a crash) is skipped and counted, not
 * dropped from the file.
 */

import { randomUUID } from 'node:crypto';
import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { activityFactsSchema, auditEntryViewSchema } from '../../shared/ipc/channels/audit';
import type { AuditEntryView } from '../../shared/ipc/channels/audit';
import { describeActivity } from '../../shared/activity';
import type { ActivityFacts } from '../../shared/activity';
import { DeskFailure } from '../../shared/ipc/errors';
import { appendLineDurable, createSerialQueue, privateFileMode } from '../infra/durable-file';
import type { Logger } from '../infra/log';

/**
 * One entry as stored on disk: the shape the audit.* channels carry (src/shared/ipc/channels/audit.ts)
 * without the sentence, which is made when read (so it follows the describer, not the day it was
 * written); entries written before facts were recorded read with none.
 */
export const auditEntrySchema = auditEntryViewSchema
  .omit({ summary: true, facts: true })
  .extend({ facts: activityFactsSchema.nullable().default(null) });
export type AuditEntry = Omit<AuditEntryView, 'summary'>;

/** An entry as the channels, the push event and the CSV export carry it: with its sentence. */
export function auditView(entry: AuditEntry): AuditEntryView {
  return { ...entry, summary: describeActivity(entry) };
}

export interface AuditRecordInput {
  operation: string;
  idempotencyKey?: string | null;
  target?: string | null;
  outcome: AuditEntry['outcome'];
  detail?: string | null;
  /** What moved, for the sentence (amounts in minor units, names, codes). */
  facts?: ActivityFacts | null;
  /** The profile that owns the object written (its credential and bank are recorded); default: the active one. */
  profileId?: string | undefined;
}

export interface AuditLog {
  record(input: AuditRecordInput): Promise<AuditEntryView>;
  /** Newest first; `before` is an entry id (the page continues after it). */
  list(query?: {
    limit?: number;
    before?: string;
  }): Promise<{ entries: AuditEntryView[]; nextBefore: string | null; skipped: number }>;
  /** Writes every entry as CSV (oldest first); answers how many rows. */
  exportCsv(file: string): Promise<number>;
  readonly file: string;
}

/** Who acted and where, for the profile that owns the write (default: the active profile). */
export interface AuditContext {
  who(profileId?: string): string;
  environment(profileId?: string): { id: string; name: string };
}

const columns = [
  'at',
  'who',
  'environmentId',
  'environmentName',
  'operation',
  'idempotencyKey',
  'target',
  'outcome',
  'detail',
  'id',
  'summary',
] as const;

/** One CSV cell: quoted, and neutralised if a spreadsheet would read it as a formula. */
export function csvCell(value: string | null): string {
  let v = value ?? '';
  if (/^[=+\-@\t\r]/.test(v)) v = `'${v}`;
  return `"${v.replace(/"/g, '""')}"`;
}

export function toCsv(entries: AuditEntry[]): string {
  const lines = [columns.join(',')];
  for (const e of entries.map(auditView)) lines.push(columns.map((c) => csvCell(e[c])).join(','));
  return `${lines.join('\r\n')}\r\n`;
}

export function openAuditLog(options: { dataDir: string; log: Logger; context: AuditContext }): AuditLog {
  const file = path.join(options.dataDir, 'audit.jsonl');
  const queue = createSerialQueue();

  const readAll = async (): Promise<{ entries: AuditEntry[]; skipped: number }> => {
    let text: string;
    try {
      text = await readFile(file, 'utf8');
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return { entries: [], skipped: 0 };
      throw new DeskFailure({ kind: 'local', message: 'The audit log could not be read.' }, { cause: err });
    }
    const entries: AuditEntry[] = [];
    let skipped = 0;
    for (const line of text.split('\n')) {
      if (!line.trim()) continue;
      try {
        const r = auditEntrySchema.safeParse(JSON.parse(line));
        if (r.success) entries.push(r.data);
        else skipped++;
      } catch {
        skipped++;
      }
    }
    if (skipped > 0) options.log.warn('audit: unreadable lines skipped', { skipped });
    return { entries, skipped };
  };

  return {
    file,
    record(input) {
      return queue(async () => {
        const env = options.context.environment(input.profileId);
        const entry: AuditEntry = {
          id: randomUUID(),
          at: new Date().toISOString(),
          who: options.context.who(input.profileId),
          environmentId: env.id,
          environmentName: env.name,
          operation: input.operation,
          idempotencyKey: input.idempotencyKey ?? null,
          target: input.target ?? null,
          outcome: input.outcome,
          detail: input.detail ? input.detail.slice(0, 4000) : null,
          facts: input.facts ?? null,
        };
        try {
          await appendLineDurable(file, JSON.stringify(entry));
        } catch (err) {
          options.log.error('audit: could not append', { error: err });
          throw new DeskFailure(
            { kind: 'local', message: 'The audit log could not be written.' },
            { cause: err },
          );
        }
        return auditView(entry);
      });
    },
    async list(query = {}) {
      const limit = Math.max(1, Math.min(query.limit ?? 200, 1000));
      const { entries, skipped } = await readAll();
      const newestFirst = entries.reverse();
      let start = 0;
      if (query.before) {
        const i = newestFirst.findIndex((e) => e.id === query.before);
        start = i < 0 ? newestFirst.length : i + 1;
      }
      const page = newestFirst.slice(start, start + limit);
      const more = start + limit < newestFirst.length;
      return {
        entries: page.map(auditView),
        nextBefore: more && page.length > 0 ? page[page.length - 1]!.id : null,
        skipped,
      };
    },
    async exportCsv(target) {
      const { entries } = await readAll();
      try {
        await writeFile(target, toCsv(entries), { mode: privateFileMode });
      } catch (err) {
        throw new DeskFailure(
          { kind: 'local', message: `The CSV file could not be written to ${target}.` },
          { cause: err },
        );
      }
      return entries.length;
    },
  };
}
