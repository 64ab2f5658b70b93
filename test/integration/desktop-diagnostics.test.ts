import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { strFromU8, unzipSync } from 'fflate';
import { afterEach, describe, expect, it } from 'vitest';
import { exportDiagnostics } from '../../src/main/desktop/diagnostics';
import type { DiagnosticsInfo } from '../../src/main/desktop/diagnostics';
import { createLogger, type LogRecord } from '../../src/main/infra/log';
import { createHeadlessPlatform } from '../../src/main/infra/platform';
import { formatLogLine } from '../../src/main/electron/log/file';

const dirs: string[] = [];
afterEach(async () => {
  for (const d of dirs.splice(0)) await rm(d, { recursive: true, force: true });
});

const info: DiagnosticsInfo = {
  app: { name: 'Treasury Desk', version: '0.1.0', packaged: false },
  runtime: { node: process.versions.node },
  os: { platform: process.platform, release: os.release(), arch: process.arch },
  exportedAt: '2026-11-23T15:00:00.000Z',
};

describe('Help → Export diagnostics', () => {
  it('zips the redacted logs and the versions to the path the save dialog answered', async () => {
    const dir = await mkdtemp(path.join(os.tmpdir(), 'td-diag-'));
    dirs.push(dir);
    const logsDir = path.join(dir, 'logs');
    await mkdir(logsDir);
    const token = 'sk_live_9f8e7d6c5b4a39281706';
    const records: LogRecord[] = [];
    const log = createLogger((r) => void records.push(r), 'debug');
    log.addSecret(token);
    log.info('bank call', { status: 200 });
    // Lines that reached the file without the logger (an older version, a library writing
    // directly): the token in a message, under a credential key, and as a bearer header.
    const planted = [
      JSON.stringify({ time: 't', level: 'info', message: `token was ${token}` }),
      JSON.stringify({ time: 't', level: 'info', message: 'x', data: { token: 'customer-secret-xyz123' } }),
      JSON.stringify({
        time: 't',
        level: 'info',
        message: 'x',
        data: { webhookSecret: 'whsec_abcdef123456' },
      }),
      `plain text Authorization: Bearer ${token}`,
    ];
    await writeFile(path.join(logsDir, 'main.log'), [...records.map(formatLogLine), ...planted].join('\n'));
    await writeFile(path.join(logsDir, 'main.1.log'), `${planted[0]}\n`);
    await writeFile(path.join(logsDir, 'settings.json'), '{"not":"a log"}');

    const platform = createHeadlessPlatform();
    const target = path.join(dir, 'chosen', 'diag.zip');
    await mkdir(path.dirname(target));
    platform.nextSaveAnswers.push(target);
    expect(await exportDiagnostics({ platform, logsDir, info, redact: log.redact })).toBe(target);

    const bytes = await readFile(target);
    const entries = unzipSync(new Uint8Array(bytes));
    expect(Object.keys(entries).sort()).toEqual(['logs/main.1.log', 'logs/main.log', 'versions.json']);
    const all = Object.values(entries)
      .map((b) => strFromU8(b))
      .join('\n');
    for (const secret of [token, 'customer-secret-xyz123', 'whsec_abcdef123456'])
      expect(all).not.toContain(secret);
    expect(all).toContain('[redacted]');
    expect(strFromU8(entries['logs/main.log']!)).toContain('bank call');
    expect(JSON.parse(strFromU8(entries['versions.json']!))).toEqual(info);
  });

  it('writes nothing when the analyst cancels the save dialog', async () => {
    const dir = await mkdtemp(path.join(os.tmpdir(), 'td-diag-'));
    dirs.push(dir);
    const platform = createHeadlessPlatform();
    platform.nextSaveAnswers.push(null);
    const log = createLogger(() => {});
    expect(await exportDiagnostics({ platform, logsDir: dir, info, redact: log.redact })).toBeNull();
  });
});
