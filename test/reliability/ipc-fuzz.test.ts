import { createHash } from 'node:crypto';
import { mkdir, mkdtemp, readFile, readdir, rm, writeFile } from 'node:fs/promises';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDispatcher } from '../../src/main/ipc/dispatcher';
import type { Dispatch } from '../../src/main/ipc/dispatcher';
import { channelNames, channels } from '../../src/shared/ipc/contract';
import { appErrorKinds } from '../../src/shared/ipc/errors';
import type { Envelope } from '../../src/shared/ipc/errors';
import { recordFigures } from './support/figures';
import { runSeed, trials } from '../support/rng';
import { arbitraryFor, channelArgs, hostileValues } from './support/zod-arbitrary';
import type { HostileContext } from './support/zod-arbitrary';
import { startServices } from '../support/services';
import type { TestServices } from '../support/services';
import { pdfDocument } from '../support/documents';

/**
 * Every IPC channel of the contract (channels added later included) through the real dispatcher
 * and the real handlers, against the in-process sandbox, with random and hostile arguments that
 * crossed a structured clone like Electron IPC: every answer is an envelope, every failure a typed
 * AppError, nothing is thrown out of the dispatcher, Object.prototype stays clean, no handler
 * answers `internal`, and no file appears outside the data folder.
 */

const sender = { url: 'app://desk/index.html', isMainFrame: true };
const loopback = new Set(['127.0.0.1', 'localhost', '::1', '[::1]']);

let root = '';
let dataDir = '';
let cwdDir = '';
let outsideDir = '';
let previousCwd = '';
let t: TestServices;
let dispatch: Dispatch;
let ctx: HostileContext;
let passwdHash = '';
const blockedConnects: string[] = [];
const crashes: unknown[] = [];
const originalConnect = net.Socket.prototype.connect;
const onCrash = (err: unknown): void => {
  crashes.push(err);
};

const protoKeys = (): string[] =>
  [Object.prototype, Array.prototype, Function.prototype, String.prototype].flatMap((p) =>
    Object.getOwnPropertyNames(p),
  );
let protoBefore: string[] = [];

async function walk(dir: string): Promise<string[]> {
  const out: string[] = [];
  for (const e of await readdir(dir, { withFileTypes: true })) {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) out.push(p, ...(await walk(p)));
    else out.push(p);
  }
  return out;
}

const sha = async (file: string): Promise<string> =>
  createHash('sha256')
    .update(await readFile(file).catch(() => Buffer.alloc(0)))
    .digest('hex');

beforeAll(async () => {
  // A deep folder: even ten "../" from the data folder or the working directory stay inside root.
  root = await mkdtemp(path.join(os.tmpdir(), 'td-rel-fuzz-'));
  const deepDir = path.join(root, ...Array.from({ length: 16 }, (_, i) => `l${i}`));
  dataDir = path.join(deepDir, 'data');
  cwdDir = path.join(deepDir, 'cwd');
  outsideDir = path.join(root, 'outside');
  await mkdir(cwdDir, { recursive: true });
  await mkdir(outsideDir, { recursive: true });
  previousCwd = process.cwd();
  process.chdir(cwdDir);
  passwdHash = await sha('/etc/passwd');

  // Network guard: this test talks to the in-process sandbox only. A fuzzed profile URL that
  // points elsewhere is refused at the socket, as if the host did not answer.
  net.Socket.prototype.connect = function guarded(this: net.Socket, ...args: unknown[]) {
    const first = args[0] as { host?: string; path?: string } | number | string | undefined;
    const host =
      typeof first === 'object' && first !== null
        ? first.path
          ? 'unix'
          : (first.host ?? 'localhost')
        : typeof args[1] === 'string'
          ? args[1]
          : 'localhost';
    if (host !== 'unix' && !loopback.has(host)) {
      blockedConnects.push(host);
      process.nextTick(() =>
        this.destroy(
          Object.assign(new Error(`test guard: no network beyond loopback (${host})`), {
            code: 'ECONNREFUSED',
          }),
        ),
      );
      return this;
    }
    return (originalConnect as (...a: unknown[]) => net.Socket).apply(this, args);
  } as typeof net.Socket.prototype.connect;
  process.on('uncaughtException', onCrash);
  process.on('unhandledRejection', onCrash);

  t = await startServices({ dataDir });
  dispatch = createDispatcher({
    handlers: t.services.handlers,
    isTrustedSender: (s) => s.isMainFrame && s.url === sender.url,
    log: t.services.log,
  });
  await t.services.session.check();
  const fx = t.services.sandbox!.fixtures;
  const plausible = new Set<string>(['sandbox', 'a-admin', 'a-viewer', 'b-admin']);
  for (const le of fx.legal_entities) {
    plausible.add(le.id);
    for (const a of le.accounts) plausible.add(a.id);
    for (const x of le.incoming_transfers) plausible.add(x.transaction_id);
    for (const r of le.rfi_ids.slice(0, 4)) {
      plausible.add(r);
      const rfi = await t.services.bank.getRfi(r).catch(() => null);
      for (const q of rfi?.questions ?? []) plausible.add(q.id);
    }
  }
  ctx = { outsideDir, plausible: [...plausible] };
  const realPdf = path.join(outsideDir, 'real.pdf');
  await writeFile(realPdf, pdfDocument(300, 1));
  dialogPaths = [
    ['../../etc/passwd'],
    ['/etc/passwd', '/etc/shadow'],
    ['/dev/zero', '/dev/urandom', '/proc/self/environ'],
    [`${dataDir}/../../../escape.pdf`, `${dataDir}/rfi-answers`],
    [realPdf, realPdf],
    ['', '\u0000', 'C:\\Windows\\win.ini'],
    [`/${'a'.repeat(5000)}.pdf`],
    [],
  ];
  protoBefore = protoKeys();
});

afterAll(async () => {
  await t?.close();
  net.Socket.prototype.connect = originalConnect;
  process.off('uncaughtException', onCrash);
  process.off('unhandledRejection', onCrash);
  if (previousCwd) process.chdir(previousCwd);
  if (root) await rm(root, { recursive: true, force: true });
});

interface Tally {
  calls: number;
  ok: number;
  kinds: Record<string, number>;
  problems: string[];
  /** Calls that consumed a hostile answer of the open-file dialog. */
  dialogAnswers: number;
}
const tally: Tally = { calls: 0, ok: 0, kinds: {}, problems: [], dialogAnswers: 0 };
let dialogPaths: string[][] = [];

function describeArgs(args: unknown): string {
  try {
    return (JSON.stringify(args) ?? String(args)).slice(0, 200);
  } catch {
    return Object.prototype.toString.call(args);
  }
}

function withTimeout<T>(p: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  return Promise.race([
    p.finally(() => clearTimeout(timer)),
    new Promise<T>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`${what}: no answer within ${ms} ms`)), ms);
    }),
  ]);
}

/** One call as Electron would deliver it; answers a problem description, or null when fine. */
async function probe(channel: unknown, args: unknown, from = sender): Promise<string | null> {
  let cloned: unknown;
  try {
    cloned = structuredClone(args);
  } catch {
    return null; // cannot cross IPC at all
  }
  tally.calls++;
  // Whatever the native open dialog answers next: hostile paths (reading only; the save dialog
  // is left alone, as a chosen path is written to).
  t.platform.nextDialogAnswers.length = 0;
  t.platform.nextDialogAnswers.push(dialogPaths[tally.calls % dialogPaths.length]!);
  let env: Envelope<unknown>;
  try {
    env = await withTimeout(dispatch(channel, cloned, from), 10_000, String(channel));
    if (t.platform.nextDialogAnswers.length === 0) tally.dialogAnswers++;
    t.platform.nextDialogAnswers.length = 0;
  } catch (err) {
    return `${String(channel)} threw out of the dispatcher: ${(err as Error).message} (args ${describeArgs(args)})`;
  }
  const polluted = ({} as Record<string, unknown>).polluted !== undefined;
  const protoNow = protoKeys();
  if (polluted || protoNow.length !== protoBefore.length) {
    return `${String(channel)} polluted a prototype with ${describeArgs(args)}`;
  }
  if (typeof env !== 'object' || env === null || typeof env.ok !== 'boolean') {
    return `${String(channel)} answered something that is not an envelope`;
  }
  if (env.ok) {
    tally.ok++;
    const def = channels[channel as keyof typeof channels];
    if (def && !def.result.safeParse(env.value).success) {
      return `${String(channel)} answered a value that does not match its result schema`;
    }
    return null;
  }
  const e = env.error;
  tally.kinds[e.kind] = (tally.kinds[e.kind] ?? 0) + 1;
  if (!appErrorKinds.includes(e.kind) || typeof e.message !== 'string' || e.message.length > 4000) {
    return `${String(channel)} answered an untyped error ${describeArgs(e)}`;
  }
  if (e.kind === 'internal') {
    return `${String(channel)} failed internally (a handler bug) with args ${describeArgs(args)}`;
  }
  return null;
}

describe('reliability: every IPC channel under random and hostile arguments', () => {
  const runs = trials(12, 300);

  it('covers the whole contract', () => {
    expect(channelNames.length).toBeGreaterThanOrEqual(10);
    expect(new Set(channelNames)).toEqual(new Set(Object.keys(t.services.handlers)));
  });

  it('unknown channels, prototype names as channels, foreign senders: typed refusals', async () => {
    for (const name of [
      '__proto__',
      'constructor',
      'toString',
      'hasOwnProperty',
      '',
      'x'.repeat(1e5),
      42,
      null,
    ]) {
      const p = await probe(name, undefined);
      expect(p).toBeNull();
    }
    expect(tally.kinds.unknown_channel).toBeGreaterThanOrEqual(8);
    for (const url of ['https://evil.example/', 'app://desk/../../etc', undefined]) {
      const env = await dispatch(channelNames[0], undefined, { url, isMainFrame: true });
      expect(env).toMatchObject({ ok: false, error: { kind: 'forbidden_sender' } });
    }
  });

  it(`each channel: the fixed hostile values, then ${runs} random argument sets`, async () => {
    const seed = runSeed('ipc-fuzz');
    const started = Date.now();
    const problems: string[] = [];
    for (const [i, name] of channelNames.entries()) {
      for (const value of hostileValues(ctx)) {
        const p = await probe(name, value);
        if (p) problems.push(p);
      }
      const schema = channels[name].args;
      // Valid arguments with one string field replaced by a prototype member's name.
      const [valid] = fc.sample(arbitraryFor(schema, ctx, 'valid'), { seed: seed + i, numRuns: 1 });
      if (valid && typeof valid === 'object' && !Array.isArray(valid)) {
        for (const [key, v] of Object.entries(valid)) {
          if (typeof v !== 'string') continue;
          for (const proto of [
            '__proto__',
            'constructor',
            'prototype',
            'toString',
            'valueOf',
            'hasOwnProperty',
          ]) {
            const p = await probe(name, { ...valid, [key]: proto });
            if (p) problems.push(p);
          }
        }
      }
      // Channels that open the file dialog: every hostile dialog answer once, with valid arguments.
      if (/pick/i.test(name) && valid !== undefined) {
        for (let k = 0; k < dialogPaths.length; k++) {
          const p = await probe(name, valid);
          if (p) problems.push(p);
        }
      }
      await fc.assert(
        fc.asyncProperty(channelArgs(schema, ctx), async (args) => {
          const p = await probe(name, args);
          if (p) problems.push(p);
          return true;
        }),
        { seed: seed + i, numRuns: runs },
      );
    }
    // Background work the calls started (reads after create, outbox) settles without a crash.
    await new Promise((r) => setTimeout(r, 300));
    const files = await walk(root);
    const escaped = files.filter((f) => !f.startsWith(`${dataDir}${path.sep}`) && f !== dataDir);
    const allowedDirs = new Set(
      [outsideDir, cwdDir].concat(
        Array.from({ length: 17 }, (_, k) =>
          path.join(root, ...Array.from({ length: k }, (_, i) => `l${i}`)),
        ),
      ),
    );
    const strayFiles = escaped.filter((f) => !allowedDirs.has(f) && f !== path.join(outsideDir, 'real.pdf'));
    await recordFigures('ipc-fuzz', {
      seed,
      channels: channelNames.length,
      randomRunsPerChannel: runs,
      fixedHostileValuesPerChannel: hostileValues(ctx).length,
      calls: tally.calls,
      okAnswers: tally.ok,
      errorKinds: tally.kinds,
      problems: problems.length,
      crashes: crashes.length,
      filesOutsideDataDir: strayFiles.length,
      blockedNonLoopbackConnects: blockedConnects.length,
      hostileDialogAnswersUsed: tally.dialogAnswers,
      durationMs: Date.now() - started,
    });
    expect(problems.slice(0, 20), `seed ${seed}`).toEqual([]);
    expect(crashes.map(String), `seed ${seed}`).toEqual([]);
    expect(strayFiles, `seed ${seed}`).toEqual([]);
    expect(await sha('/etc/passwd')).toBe(passwdHash);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect(tally.calls).toBeGreaterThan(channelNames.length * runs);
  }, 900_000);
});
