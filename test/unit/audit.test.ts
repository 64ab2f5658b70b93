import { appendFile, readFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { csvCell, openAuditLog, toCsv } from '../../src/main/bank/audit';
import { createLogger, memorySink } from '../../src/main/infra/log';
import { tempDir } from '../support/temp-dir';

const context = {
  who: () => 'Alder admin (admin, le_a)',
  environment: () => ({ id: 'sandbox', name: 'Embedded sandbox' }),
};

describe('audit log', () => {
  it('appends entries filling when, who and environment; lists newest first in pages', async () => {
    const dir = await tempDir();
    const audit = openAuditLog({ dataDir: dir, log: createLogger(memorySink()), context });
    for (let i = 0; i < 5; i++) {
      await audit.record({
        operation: 'return.confirm',
        target: `txn_${i}`,
        outcome: i === 2 ? 'failed' : 'succeeded',
        detail: i === 2 ? 'precondition' : null,
      });
    }
    const first = await audit.list({ limit: 2 });
    expect(first.entries.map((e) => e.target)).toEqual(['txn_4', 'txn_3']);
    expect(first.entries[0]).toMatchObject({
      who: 'Alder admin (admin, le_a)',
      environmentId: 'sandbox',
      operation: 'return.confirm',
    });
    const second = await audit.list({ limit: 2, before: first.nextBefore! });
    expect(second.entries.map((e) => e.target)).toEqual(['txn_2', 'txn_1']);
    const third = await audit.list({ limit: 2, before: second.nextBefore! });
    expect(third.entries.map((e) => e.target)).toEqual(['txn_0']);
    expect(third.nextBefore).toBeNull();
    // Append-only: a reopened log continues the same file.
    const reopened = openAuditLog({ dataDir: dir, log: createLogger(memorySink()), context });
    await reopened.record({ operation: 'x', outcome: 'pending' });
    expect((await readFile(reopened.file, 'utf8')).trim().split('\n')).toHaveLength(6);
  });

  it('skips (and counts) a torn line without losing the others', async () => {
    const dir = await tempDir();
    const audit = openAuditLog({ dataDir: dir, log: createLogger(memorySink()), context });
    await audit.record({ operation: 'a', outcome: 'succeeded' });
    await appendFile(path.join(dir, 'audit.jsonl'), '{"id":"torn","at":\n');
    await audit.record({ operation: 'b', outcome: 'succeeded' });
    const page = await audit.list();
    expect(page.entries.map((e) => e.operation)).toEqual(['b', 'a']);
    expect(page.skipped).toBe(1);
  });

  it('exports CSV that a spreadsheet cannot execute', async () => {
    expect(csvCell('=HYPERLINK("http://x")')).toBe(`"'=HYPERLINK(""http://x"")"`);
    for (const bad of ['+1', '-2', '@SUM(A1)', '\tx']) expect(csvCell(bad).startsWith(`"'`)).toBe(true);
    expect(csvCell('plain, with comma')).toBe('"plain, with comma"');
    expect(csvCell(null)).toBe('""');

    const dir = await tempDir();
    const audit = openAuditLog({ dataDir: dir, log: createLogger(memorySink()), context });
    await audit.record({
      operation: 'rfi.respond',
      target: '=cmd|calc',
      outcome: 'succeeded',
      detail: 'line1\nline2 "quoted"',
    });
    const out = path.join(dir, 'export.csv');
    expect(await audit.exportCsv(out)).toBe(1);
    const csv = await readFile(out, 'utf8');
    const [header, row] = csv.split('\r\n');
    expect(header).toBe(
      'at,who,environmentId,environmentName,operation,idempotencyKey,target,outcome,detail,id,summary',
    );
    expect(row).toContain(`"'=cmd|calc"`);
    // the raw fields, then the sentence
    expect(row!.endsWith(',"RFI answered — =cmd|calc"')).toBe(true);
    expect(csv).toContain('"line1\nline2 ""quoted"""');
    expect(toCsv([])).toBe(`${header}\r\n`);
  });
});
