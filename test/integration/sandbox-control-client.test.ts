/**
 * Main's side of the embedded sandbox's guards, over real HTTP: the app's bank client has no
 * control calls and never sends the control secret (only test support does, never with a bearer
 * token); the embedded sandbox's seed belongs to the data folder.
 */
import { stat, readFile, rm } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BankClient } from '../../src/main/bank/client';
import { createServerClock } from '../../src/main/bank/clock';
import { createLogger, memorySink } from '../../src/main/infra/log';
import { SANDBOX_SEED_FILE } from '../../src/main/session/sandbox-seed';
import type { KeyringBackend } from '../../src/main/infra/keyring';
import { startSandbox, type RunningSandbox } from '../../src/sandbox';
import { startFaultProxy, type FaultProxy } from '../support/fault-proxy';
import { startServices, tempDir } from '../support/services';
import { sandboxStaff, staffOf, StaffCallError } from '../support/sandbox-staff';

/** An in-process keychain: these tests are about the sandbox, not the Secret Service. */
const entries = new Map<string, string>();
const keyring: KeyringBackend = {
  name: 'test keychain',
  get: async (s, a) => entries.get(`${s}\u0000${a}`) ?? null,
  set: async (s, a, secret) => void entries.set(`${s}\u0000${a}`, secret),
  delete: async (s, a) => entries.delete(`${s}\u0000${a}`),
};

const log = createLogger(memorySink(), 'debug');

describe('the control secret: only test support sends it, the app never does', () => {
  let sb: RunningSandbox;
  let proxy: FaultProxy;
  beforeAll(async () => {
    sb = await startSandbox({ port: 0, visibilityDelayMs: { min: 0, max: 0 } });
    proxy = await startFaultProxy(sb.url);
  });
  afterAll(async () => {
    await proxy.close();
    await sb.close();
  });

  const token = () => sb.fixtures.legal_entities[0]!.tokens.admin;

  it('the app bank client has no staff or control calls and sends no secret on bank routes', async () => {
    const bank = new BankClient({
      getBaseUrl: () => proxy.url,
      getToken: async () => token(),
      log,
      clock: createServerClock(),
      retry: { attempts: 1 },
    });
    expect('staff' in bank).toBe(false);
    proxy.seen.length = 0;
    await bank.getWebhookConfig();
    const [api] = proxy.seen;
    expect(api?.path).toBe('/v1/webhook/url');
    expect(api?.headers['sandbox-control-secret']).toBeUndefined();
    expect(JSON.stringify(api?.headers)).not.toContain(sb.controlSecret);
    expect(api?.headers.authorization).toBe(`Bearer ${token()}`);
  });

  it('test support sends the secret, and no bearer token, on control routes; without it the sandbox refuses', async () => {
    proxy.seen.length = 0;
    expect(
      (await sandboxStaff({ url: proxy.url, controlSecret: sb.controlSecret }).getFixtures()).legal_entities,
    ).toHaveLength(2);
    const [control] = proxy.seen;
    expect(control?.path).toBe('/v1/sandbox/fixtures');
    expect(control?.headers['sandbox-control-secret']).toBe(sb.controlSecret);
    expect(control?.headers.authorization).toBeUndefined();
    const refused = await sandboxStaff({ url: proxy.url, controlSecret: 'wrong' })
      .getFixtures()
      .catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(StaffCallError);
    expect((refused as StaffCallError).status).toBe(403);
  });
});

describe('embedded sandbox: a seed per data folder', () => {
  it('two data folders give different tokens; the same folder the same tokens after a restart', async () => {
    const dirA = await tempDir();
    const dirB = await tempDir();
    try {
      const first = await startServices({ dataDir: dirA, keyring, rfis: { autoStart: false } });
      const tokensA = first.services.sandbox!.fixtures.legal_entities.map((l) => l.tokens);
      const secretA = first.services.sandbox!.controlSecret;
      // the embedded sandbox's control routes answer its secret
      expect((await staffOf(first.services).getFixtures()).legal_entities.map((l) => l.tokens)).toEqual(
        tokensA,
      );
      await first.stop();

      const again = await startServices({ dataDir: dirA, keyring, rfis: { autoStart: false } });
      expect(again.services.sandbox!.fixtures.legal_entities.map((l) => l.tokens)).toEqual(tokensA);
      // the control secret is new every run
      expect(again.services.sandbox!.controlSecret).not.toBe(secretA);
      await again.stop();

      const other = await startServices({ dataDir: dirB, keyring, rfis: { autoStart: false } });
      const tokensB = other.services.sandbox!.fixtures.legal_entities.map((l) => l.tokens);
      await other.stop();
      expect(tokensB[0]!.admin).not.toBe(tokensA[0]!.admin);
      expect(tokensB[1]!.admin).not.toBe(tokensA[1]!.admin);

      const file = path.join(dirA, SANDBOX_SEED_FILE);
      expect((await readFile(file, 'utf8')).trim()).toMatch(/^[0-9a-f]{32}$/);
      expect((await stat(file)).mode & 0o777).toBe(0o600);
      // the seed-1 tokens every install used to share are gone
      const fixed = await startSandbox({ port: 0, seed: 1 });
      const shared = fixed.fixtures.legal_entities[0]!.tokens.admin;
      await fixed.close();
      expect(tokensA[0]!.admin).not.toBe(shared);
    } finally {
      await rm(dirA, { recursive: true, force: true });
      await rm(dirB, { recursive: true, force: true });
    }
  });

  it('an explicit seed still wins (tests, benches)', async () => {
    const t = await startServices({
      keyring,
      rfis: { autoStart: false },
      environment: {
        kind: 'embedded-sandbox',
        sandbox: { seed: 'fixed', visibilityDelayMs: { min: 0, max: 0 } },
      },
    });
    try {
      const ref = await startSandbox({ port: 0, seed: 'fixed' });
      const expected = ref.fixtures.legal_entities[0]!.tokens.admin;
      await ref.close();
      expect(t.services.sandbox!.fixtures.legal_entities[0]!.tokens.admin).toBe(expected);
    } finally {
      await t.close();
    }
  });
});
