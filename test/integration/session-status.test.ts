import { afterEach, describe, expect, it } from 'vitest';
import { startSandbox } from '../../src/sandbox';
import type { RunningSandbox } from '../../src/sandbox';
import { startFaultProxy } from '../support/fault-proxy';
import type { FaultProxy } from '../support/fault-proxy';
import { startServices } from '../support/services';
import type { TestServices } from '../support/services';
import type { SessionStatus } from '../../src/shared/ipc/channels/session';
import type { KeyringBackend } from '../../src/main/infra/keyring';
import { unavailableKeyringBackend } from '../../src/main/infra/keyring';

/** An in-process keychain: this is about the status line, not the Secret Service (vault.test.ts). */
const entries = new Map<string, string>();
const keyring: KeyringBackend = {
  name: 'test keychain',
  get: async (s, a) => entries.get(`${s}\u0000${a}`) ?? null,
  set: async (s, a, secret) => void entries.set(`${s}\u0000${a}`, secret),
  delete: async (s, a) => entries.delete(`${s}\u0000${a}`),
};

/**
 * The status line's one source: the session, fed by what the bank client sees on every attempt.
 * A bank behind a loopback proxy that drops every connection, then answers again.
 */
describe('session status: unreachable since, retrying, connected again', () => {
  let sandbox: RunningSandbox | null = null;
  let proxy: FaultProxy | null = null;
  let t: TestServices | null = null;
  afterEach(async () => {
    await t?.close();
    await proxy?.close();
    await sandbox?.close();
    t = null;
    proxy = null;
    sandbox = null;
  });

  const lastPushed = (s: TestServices): SessionStatus | undefined =>
    s.pushed.filter((m) => m.event === 'session.changed').at(-1)?.payload as SessionStatus | undefined;

  it('any failed call publishes "offline" with the first failure time and a retry time; the retry finds the bank back', async () => {
    sandbox = await startSandbox({ visibilityDelayMs: { min: 0, max: 0 } });
    proxy = await startFaultProxy(sandbox.url);
    const le = sandbox.fixtures.legal_entities[0]!;
    t = await startServices({
      environment: { kind: 'remote', baseUrl: proxy.url, name: 'Bank via proxy', token: le.tokens.admin },
      rfis: { autoStart: false },
      keyring,
    });
    const first = await t.services.session.check({ fresh: true });
    expect(first).toMatchObject({
      connection: 'connected',
      since: null,
      retryAt: null,
      keychainProblem: null,
    });
    expect(first.credential?.legalEntityId).toBe(le.id);

    proxy.rules.push(() => ({ kind: 'drop' }));
    const before = Date.now();
    // Not the session's own check: a feature's read fails, and the status line follows it.
    await expect(t.services.bank.listRfis({ page_size: '1' })).rejects.toMatchObject({ kind: 'offline' });
    const down = lastPushed(t)!;
    expect(down.connection).toBe('offline');
    expect(Date.parse(down.since!)).toBeGreaterThanOrEqual(before - 5);
    expect(Date.parse(down.retryAt!)).toBeGreaterThan(Date.parse(down.since!));
    // still who we were: the credential is kept while unreachable
    expect(down.credential?.legalEntityId).toBe(le.id);

    // The scheduled retry fails too: the since-time stays the first failure's, the retry moves on.
    await expect.poll(() => lastPushed(t!)!.checkedAt, { timeout: 10_000 }).not.toBe(down.checkedAt);
    const still = lastPushed(t)!;
    expect(still.connection).toBe('offline');
    expect(still.since).toBe(down.since);
    expect(Date.parse(still.retryAt!)).toBeGreaterThan(Date.parse(down.retryAt!));

    // The bank answers again: the next retry says connected, and nothing is left scheduled.
    proxy.rules.length = 0;
    await expect.poll(() => lastPushed(t!)!.connection, { timeout: 15_000 }).toBe('connected');
    expect(lastPushed(t)).toMatchObject({ since: null, retryAt: null });
    expect(t.services.session.lastStatus?.connection).toBe('connected');
  });

  it('an answer from the bank after a failure re-checks at once, without waiting for the retry', async () => {
    sandbox = await startSandbox({ visibilityDelayMs: { min: 0, max: 0 } });
    proxy = await startFaultProxy(sandbox.url);
    const le = sandbox.fixtures.legal_entities[0]!;
    t = await startServices({
      environment: { kind: 'remote', baseUrl: proxy.url, name: 'Bank via proxy', token: le.tokens.admin },
      rfis: { autoStart: false },
      keyring,
    });
    await t.services.session.check({ fresh: true });
    proxy.rules.push(() => ({ kind: 'drop' }));
    await expect(t.services.bank.listRfis({ page_size: '1' })).rejects.toMatchObject({ kind: 'offline' });
    expect(lastPushed(t)?.connection).toBe('offline');
    proxy.rules.length = 0;
    await t.services.bank.listRfis({ page_size: '1' });
    await expect.poll(() => lastPushed(t!)?.connection, { timeout: 1_500 }).toBe('connected');
  });

  it('the embedded sandbox names the legal entity', async () => {
    t = await startServices({ rfis: { autoStart: false }, keyring });
    const status = await t.services.session.check({ fresh: true });
    expect(status.credential).toMatchObject({ legalEntityName: 'Alder Trade GmbH', role: 'admin' });
  });

  it('without a keychain the status says so, beside the connection', async () => {
    t = await startServices({ rfis: { autoStart: false }, keyring: unavailableKeyringBackend() });
    const status = await t.services.session.check({ fresh: true });
    expect(status.connection).toBe('connected');
    expect(status.keychainProblem).toMatch(/memory/i);
  });
});
