/**
 * The local audit log: an append-only record (one line per entry, fsynced) of every write the
 * analyst made — when, who (the credential as the bank reported it), which environment, the
 * operation, its idempotency key, the target and the outcome. Entries are never edited or
 * removed; a line that cannot be parsed (a torn write after a crash) is skipped and counted, not
 * dropped from the file.
 *
 * Tamper-evident: each line is `{"n":<number>,"prev":"<sha256 of the previous line>","entry":{…}}`
 * sealed by the at-rest codec for this file with generation n (plain without a keychain). So an
 * entry changed fails its seal, an entry removed or moved breaks the numbering and the chain, and
 * entries cut from the end leave the last number below the one the generation index (pinned in the
 * keychain) last saw written. Each such finding is reported once to the analyst (the problems list)
 * and counted in `skipped`/`broken`. Lines of the older plain format (before the chain) are read as
 * they are, and the file is rewritten sealed once when a key is there.
 */

import { createHash, randomUUID } from 'node:crypto';
import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { activityFactsSchema, auditEntryViewSchema } from '../../shared/ipc/channels/audit';
import type { AuditEntryView } from '../../shared/ipc/channels/audit';
import { describeActivity } from '../../shared/activity';
import type { ActivityFacts } from '../../shared/activity';
import { AppFailure } from '../../shared/ipc/errors';
import { plainCodec } from '../infra/at-rest';
import type { AtRestCodec } from '../infra/at-rest';
import {
  appendLineDurable,
  createSerialQueue,
  privateFileMode,
  writeFileDurable,
} from '../infra/durable-file';
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
  /** Reads the log again and writes plain entries sealed (the keychain answered later in the run). */
  reseal(): Promise<void>;
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

const lineHash = (line: string): string => createHash('sha256').update(line, 'utf8').digest('hex');
const GENESIS = '0'.repeat(64);

/** What reading the chain found wrong, in words (one sentence per finding). */
export type AuditFinding = string;

/**
 * Reads the lines of the log, checking the chain. Answers the entries, the count of lines that
 * could not be read, and what breaks the chain (changed, removed, reordered or cut entries).
 */
export function verifyAuditLines(
  text: string,
  codec: AtRestCodec,
  file: string,
): {
  entries: AuditEntry[];
  skipped: number;
  findings: AuditFinding[];
  last: { n: number; hash: string };
  legacy: number;
  /** Chained entries written plain (no data key then): sealed again once a key is there. */
  plain: number;
} {
  const entries: AuditEntry[] = [];
  const findings: AuditFinding[] = [];
  let skipped = 0;
  let legacy = 0;
  let plain = 0;
  let n = 0;
  let hash = GENESIS;
  let chained = false;
  const lines = text.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    if (!line.trim()) continue;
    let record: { n?: unknown; prev?: unknown; entry?: unknown };
    let gen = 0;
    let sealed = false;
    try {
      const opened = codec.openRecord(line, file);
      gen = opened.gen;
      sealed = opened.sealed;
      record = JSON.parse(opened.text) as typeof record;
    } catch (err) {
      skipped++;
      // A torn last line is a crash mid-append; anything else was changed.
      if (i < lines.length - 2 || line.endsWith('}')) {
        findings.push(
          `audit entry after number ${n} was changed or damaged (${err instanceof Error ? err.message : 'unreadable'})`,
        );
      }
      continue;
    }
    if (record.n === undefined && record.entry === undefined) {
      // The older plain format: an entry per line, before the chain.
      const r = auditEntrySchema.safeParse(record);
      if (r.success && !chained) {
        entries.push(r.data);
        legacy++;
      } else {
        skipped++;
        if (chained) findings.push(`an unchained entry was inserted after audit entry ${n}`);
      }
      continue;
    }
    chained = true;
    if (!sealed) plain++;
    const r = auditEntrySchema.safeParse(record.entry);
    if (typeof record.n !== 'number' || typeof record.prev !== 'string' || !r.success) {
      skipped++;
      findings.push(`audit entry after number ${n} does not have the expected shape`);
      continue;
    }
    if (sealed && gen !== record.n) {
      findings.push(`audit entry ${record.n} is sealed as number ${gen} (moved)`);
    }
    if (record.n !== n + 1) {
      findings.push(
        record.n > n + 1
          ? `audit entries ${n + 1}${record.n - 1 > n + 1 ? `–${record.n - 1}` : ''} were removed`
          : `audit entry ${record.n} appears again or out of order after entry ${n}`,
      );
    } else if (record.prev !== hash) {
      findings.push(
        `audit entry ${record.n} does not follow entry ${n} (the entry before it was changed or replaced)`,
      );
    }
    entries.push(r.data);
    n = record.n;
    hash = lineHash(line);
  }
  const expected = codec.generation(file);
  if (expected > n) {
    findings.push(
      `audit entries ${n + 1}${expected > n + 1 ? `–${expected}` : ''} were removed from the end of the log`,
    );
    n = expected;
  }
  return { entries, skipped, findings, last: { n, hash }, legacy, plain };
}

export function openAuditLog(options: {
  dataDir: string;
  log: Logger;
  context: AuditContext;
  /** Seals each entry (default plain). */
  codec?: AtRestCodec;
  /** Told once about each break in the chain (the analyst's problems list). */
  report?(problem: { file: string; movedTo: null; message: string }): void;
}): AuditLog {
  const file = path.join(options.dataDir, 'audit.jsonl');
  const codec = options.codec ?? plainCodec;
  const queue = createSerialQueue();
  const reported = new Set<string>();
  let tail: { n: number; hash: string } | null = null;

  const readAll = async (): Promise<{ entries: AuditEntry[]; skipped: number }> => {
    let text: string;
    try {
      text = await readFile(file, 'utf8');
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') {
        text = '';
      } else {
        throw new AppFailure({ kind: 'local', message: 'The audit log could not be read.' }, { cause: err });
      }
    }
    let v;
    try {
      v = verifyAuditLines(text, codec, file);
    } catch (err) {
      throw new AppFailure(
        { kind: 'keychain_unavailable', message: 'The audit log is encrypted and waiting for the keychain.' },
        { cause: err },
      );
    }
    if (v.skipped > 0) options.log.warn('audit: unreadable lines skipped', { skipped: v.skipped });
    for (const f of v.findings) {
      if (reported.has(f)) continue;
      reported.add(f);
      options.log.error('audit: the log was tampered with', { finding: f });
      options.report?.({
        file,
        movedTo: null,
        message: `The audit log (audit.jsonl) was altered outside the app: ${f}. The entries left are shown; the file is kept as it is.`,
      });
    }
    tail ??= v.last;
    // Entries of the older plain format, or written plain before the keychain answered: written
    // again, sealed and chained, once a key is there.
    if ((v.legacy > 0 || v.plain > 0) && codec.encrypted && v.findings.length === 0) {
      let n = 0;
      let hash = GENESIS;
      const out: string[] = [];
      for (const entry of v.entries) {
        n++;
        const line = codec.seal(JSON.stringify({ n, prev: hash, entry }), file);
        out.push(line);
        hash = lineHash(line);
      }
      await writeFileDurable(file, `${out.join('\n')}\n`);
      codec.written(file);
      tail = { n, hash };
    }
    return { entries: v.entries, skipped: v.skipped };
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
          if (!tail) await readAll();
          const at = tail ?? { n: 0, hash: GENESIS };
          const line = codec.seal(JSON.stringify({ n: at.n + 1, prev: at.hash, entry }), file);
          await appendLineDurable(file, line);
          codec.written(file);
          tail = { n: at.n + 1, hash: lineHash(line) };
        } catch (err) {
          options.log.error('audit: could not append', { error: err });
          throw new AppFailure(
            { kind: 'local', message: 'The audit log could not be written.' },
            { cause: err },
          );
        }
        return auditView(entry);
      });
    },
    async list(query = {}) {
      const limit = Math.max(1, Math.min(query.limit ?? 200, 1000));
      const { entries, skipped } = await queue(readAll);
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
    async reseal() {
      await queue(readAll);
    },
    async exportCsv(target) {
      const { entries } = await queue(readAll);
      try {
        await writeFile(target, toCsv(entries), { mode: privateFileMode });
      } catch (err) {
        throw new AppFailure(
          { kind: 'local', message: `The CSV file could not be written to ${target}.` },
          { cause: err },
        );
      }
      return entries.length;
    },
  };
}
