import { randomBytes } from 'node:crypto';
import { readFile, writeFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { openAuditLog } from '../../src/main/bank/audit';
import { createAtRestCodec, isSealed } from '../../src/main/infra/at-rest';
import type { GenerationLedger } from '../../src/main/infra/at-rest';
import { createLogger, memorySink } from '../../src/main/infra/log';
import { tempDir } from '../support/temp-dir';

const context = {
  who: () => 'Alder admin (admin, le_a)',
  environment: () => ({ id: 'sandbox', name: 'Embedded sandbox' }),
};

/** The generation index as the codec sees it, kept across "restarts" of the log. */
function ledger(): GenerationLedger {
  const m = new Map<string, number>();
  return { current: (f) => m.get(f) ?? 0, advance: (f, g) => void m.set(f, Math.max(m.get(f) ?? 0, g)) };
}

async function setup() {
  const dataDir = await tempDir();
  const codec = createAtRestCodec(
    { id: 'dk_0123456789abcdef', key: randomBytes(32) },
    { root: dataDir, generations: ledger() },
  );
  const problems: string[] = [];
  const open = () =>
    openAuditLog({
      dataDir,
      log: createLogger(memorySink()),
      context,
      codec,
      report: (p) => problems.push(p.message),
    });
  const audit = open();
  for (let i = 1; i <= 5; i++) {
    await audit.record({ operation: 'return.confirm', target: `txn_secret_${i}`, outcome: 'succeeded' });
  }
  const lines = (await readFile(audit.file, 'utf8')).trim().split('\n');
  return { audit, open, problems, lines };
}

describe('the audit log is sealed and hash-chained', () => {
  it('holds no plaintext; every line is sealed and the log reads back whole with nothing reported', async () => {
    const { audit, problems, lines } = await setup();
    expect(lines).toHaveLength(5);
    for (const l of lines) expect(isSealed(l)).toBe(true);
    expect(await readFile(audit.file, 'utf8')).not.toContain('txn_secret');
    const listed = await audit.list();
    expect(listed.entries.map((e) => e.target)).toEqual([5, 4, 3, 2, 1].map((i) => `txn_secret_${i}`));
    expect(problems).toEqual([]);
  });

  it('an entry removed from the middle is reported', async () => {
    const { audit, open, problems, lines } = await setup();
    await writeFile(audit.file, `${[lines[0], lines[1], lines[3], lines[4]].join('\n')}\n`);
    const listed = await open().list();
    expect(listed.entries).toHaveLength(4);
    expect(problems).toEqual([expect.stringMatching(/audit entries 3 were removed/)]);
  });

  it('an entry altered (one byte) is reported', async () => {
    const { audit, open, problems, lines } = await setup();
    const bad = lines[2]!.replace(/"data":"(.)/, (_m, c: string) => `"data":"${c === 'A' ? 'B' : 'A'}`);
    await writeFile(audit.file, `${[lines[0], lines[1], bad, lines[3], lines[4]].join('\n')}\n`);
    await open().list();
    expect(problems.join(' | ')).toMatch(/changed or damaged/);
  });

  it('entries swapped in order are reported', async () => {
    const { audit, open, problems, lines } = await setup();
    await writeFile(audit.file, `${[lines[0], lines[2], lines[1], lines[3], lines[4]].join('\n')}\n`);
    await open().list();
    expect(problems.length).toBeGreaterThan(0);
    expect(problems.join(' | ')).toMatch(/removed|out of order/);
  });

  it('entries cut from the end (or the whole file deleted) are reported against the generation index', async () => {
    const { audit, open, problems, lines } = await setup();
    await writeFile(audit.file, `${lines.slice(0, 3).join('\n')}\n`);
    const reopened = open();
    await reopened.list();
    expect(problems).toEqual([expect.stringMatching(/entries 4–5 were removed from the end/)]);
    // Appending goes on after the last number known, so the gap stays visible.
    await reopened.record({ operation: 'x', outcome: 'succeeded' });
    expect((await reopened.list()).entries).toHaveLength(4);
  });

  it('after a crash that lost the index updates, appending goes on with the right numbers and nothing is reported', async () => {
    const dataDir = await tempDir();
    const key = { id: 'dk_0123456789abcdef', key: randomBytes(32) };
    const problems: string[] = [];
    const open = (generations: GenerationLedger) =>
      openAuditLog({
        dataDir,
        log: createLogger(memorySink()),
        context,
        codec: createAtRestCodec(key, { root: dataDir, generations }),
        report: (p) => problems.push(p.message),
      });
    const first = open(ledger());
    for (let i = 1; i <= 4; i++)
      await first.record({ operation: 'x', target: `t${i}`, outcome: 'succeeded' });
    // The index never heard of those writes (killed before it was written).
    const after = open(ledger());
    await after.record({ operation: 'x', target: 't5', outcome: 'succeeded' });
    expect((await after.list()).entries.map((e) => e.target)).toEqual(['t5', 't4', 't3', 't2', 't1']);
    expect((await open(ledger()).list()).entries).toHaveLength(5);
    expect(problems).toEqual([]);
  });

  it('plain lines of the older format are read and rewritten sealed once', async () => {
    const dataDir = await tempDir();
    const plainLog = openAuditLog({ dataDir, log: createLogger(memorySink()), context });
    await plainLog.record({ operation: 'return.confirm', target: 'txn_old_secret', outcome: 'succeeded' });
    const old = JSON.parse((await readFile(plainLog.file, 'utf8')).trim()) as { entry: unknown };
    // The format before the chain: the bare entry on its line.
    await writeFile(plainLog.file, `${JSON.stringify(old.entry)}\n`);
    const codec = createAtRestCodec(
      { id: 'dk_0123456789abcdef', key: randomBytes(32) },
      { root: dataDir, generations: ledger() },
    );
    const sealedLog = openAuditLog({ dataDir, log: createLogger(memorySink()), context, codec });
    expect((await sealedLog.list()).entries.map((e) => e.target)).toEqual(['txn_old_secret']);
    expect(await readFile(plainLog.file, 'utf8')).not.toContain('txn_old_secret');
  });
});
