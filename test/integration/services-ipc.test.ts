import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDispatcher } from '../../src/main/ipc/dispatcher';
import type { Dispatch } from '../../src/main/ipc/dispatcher';
import type { Envelope } from '../../src/shared/ipc/errors';
import type { SettingsView } from '../../src/shared/ipc/channels/settings';
import type { SessionStatus } from '../../src/shared/ipc/channels/session';
import { channels } from '../../src/shared/ipc/contract';
import { startFaultProxy } from '../support/fault-proxy';
import { startServices, tempDir } from '../support/services';
import type { TestServices } from '../support/services';
import { staffOf } from '../support/sandbox-staff';

/** The issue-4 channels end to end through the dispatcher (the same path as Electron IPC). */
let t: TestServices;
let dispatch: Dispatch;
const sender = { url: 'app://desk/index.html', isMainFrame: true };

async function call<T>(channel: string, args?: unknown): Promise<T> {
  const env = (await dispatch(channel, args, sender)) as Envelope<T>;
  if (!env.ok) throw Object.assign(new Error(env.error.message), env.error);
  // Every answer matches the contract's result schema.
  const def = channels[channel as keyof typeof channels];
  expect(def.result.safeParse(env.value).success, `${channel} result matches the contract`).toBe(true);
  return env.value;
}

async function callError(channel: string, args?: unknown) {
  const env = (await dispatch(channel, args, sender)) as Envelope<unknown>;
  if (env.ok) throw new Error(`${channel} succeeded`);
  return env.error;
}

beforeAll(async () => {
  t = await startServices();
  dispatch = createDispatcher({
    handlers: t.services.handlers,
    isTrustedSender: () => true,
    log: t.services.log,
  });
});
afterAll(() => t.close());

describe('session and the embedded sandbox', () => {
  it('starts the sandbox on 127.0.0.1 at a free port with A admin stored through the vault', async () => {
    const status = await call<SessionStatus>('session.status');
    expect(status.connection).toBe('connected');
    expect(status.environment.baseUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(status.credential?.role).toBe('admin');
    expect(status.credential?.legalEntityId).toBe(t.services.sandbox!.fixtures.legal_entities[0]!.id);
    expect(await t.services.vault.get('sandbox')).toBe(
      t.services.sandbox!.fixtures.legal_entities[0]!.tokens.admin,
    );
    const view = await call<SettingsView>('settings.get');
    expect(view.profiles.find((p) => p.id === 'sandbox')).toMatchObject({
      hasToken: true,
      runningUrl: status.environment.baseUrl,
    });
    expect(view.profiles.find((p) => p.id === 'sandbox')?.webhookPublicKeyPem).toContain('BEGIN PUBLIC KEY');
  });

  it('switches the sandbox credential: A viewer, B admin, back to A admin', async () => {
    const creds = await call<{
      available: boolean;
      current: string;
      options: Array<{ id: string; role: string }>;
    }>('session.sandboxCredentials');
    expect(creds.available).toBe(true);
    expect(creds.current).toBe('a-admin');
    expect(creds.options.map((o) => o.id)).toEqual(['a-admin', 'a-viewer', 'b-admin']);

    const viewer = await call<SessionStatus>('session.useSandboxCredential', { credential: 'a-viewer' });
    expect(viewer.credential?.role).toBe('viewer');
    const forbidden = await t.services.bank.setWebhookUrl('').catch((e: unknown) => e);
    expect(forbidden).toMatchObject({ kind: 'forbidden' });

    const b = await call<SessionStatus>('session.useSandboxCredential', { credential: 'b-admin' });
    expect(b.credential?.legalEntityId).toBe(t.services.sandbox!.fixtures.legal_entities[1]!.id);
    expect((await call<{ current: string }>('session.sandboxCredentials')).current).toBe('b-admin');

    await call('session.useSandboxCredential', { credential: 'a-admin' });
    expect(t.pushed.filter((m) => m.event === 'session.changed').length).toBeGreaterThanOrEqual(3);
  });

  it('sign out, token refused, new token: the states the settings screen shows', async () => {
    try {
      const out = await call<SettingsView>('vault.deleteToken', { profileId: 'sandbox' });
      expect(out.profiles.find((p) => p.id === 'sandbox')?.hasToken).toBe(false);
      expect((await call<SessionStatus>('session.status')).connection).toBe('no_token');

      await call('vault.setToken', { profileId: 'sandbox', token: 'wrong-token-0123456789' });
      const refused = await call<SessionStatus>('session.status');
      expect(refused.connection).toBe('unauthenticated');
      expect(refused.problem).toMatch(/new token/);
    } finally {
      await call('session.useSandboxCredential', { credential: 'a-admin' });
    }
    expect((await call<SessionStatus>('session.status')).connection).toBe('connected');
  });

  it('a 401 from any bank call publishes "token refused" at once, without another request', async () => {
    try {
      // The token is replaced behind the session's back: it still believes it is connected.
      await t.services.vault.set('sandbox', 'revoked-token-0123456789');
      const before = t.pushed.length;
      await expect(t.services.bank.getTransaction('txn_x')).rejects.toMatchObject({
        kind: 'unauthenticated',
      });
      const published = t.pushed
        .slice(before)
        .filter((m) => m.event === 'session.changed')
        .map((m) => (m.payload as SessionStatus).connection);
      expect(published).toContain('unauthenticated');
      expect(t.services.session.lastStatus?.connection).toBe('unauthenticated');
    } finally {
      await call('session.useSandboxCredential', { credential: 'a-admin' });
    }
  });

  it('re-checks the session after the machine resumes', async () => {
    const before = t.pushed.length;
    t.platform.fire('resume');
    await expect.poll(() => t.pushed.slice(before).some((m) => m.event === 'session.changed')).toBe(true);
  });

  it('a bank without the webhook configuration endpoint (production) still checks the token', async () => {
    const proxy = await startFaultProxy(t.services.sandbox!.url);
    proxy.rules.push((r) =>
      r.path.startsWith('/v1/webhook/url')
        ? {
            kind: 'respond',
            status: 404,
            body: { error: { code: '404', status: 'NOT_FOUND', message: 'no route' } },
          }
        : undefined,
    );
    const A = t.services.sandbox!.fixtures.legal_entities[0]!;
    const prod = await startServices({
      environment: { kind: 'remote', baseUrl: proxy.url, token: A.tokens.admin },
    });
    try {
      const ok = await prod.services.session.check();
      expect(ok.connection).toBe('connected');
      expect(ok.credential).toBeNull();
      expect(ok.problem).toMatch(/does not report/);
      await prod.services.vault.set(prod.services.session.profile.id, 'revoked-token-0123456789');
      expect((await prod.services.session.check()).connection).toBe('unauthenticated');
    } finally {
      await prod.close();
      await proxy.close();
    }
  });

  it('the server clock over IPC', async () => {
    const c = await call<{ serverNow: string; samples: number }>('session.clock');
    expect(c.samples).toBeGreaterThan(0);
    expect(Math.abs(Date.parse(c.serverNow) - Date.now())).toBeLessThan(2000);
  });
});

describe('settings channels', () => {
  it('polling interval and notifications, with clear refusals', async () => {
    const view = await call<SettingsView>('settings.update', {
      pollingIntervalSeconds: 60,
      notifications: { quoteExpiry: false },
    });
    expect(view.pollingIntervalSeconds).toBe(60);
    expect(view.notifications).toMatchObject({ quoteExpiry: false, newRfi: true });
    const bad = await callError('settings.update', { pollingIntervalSeconds: 2 });
    expect(bad).toMatchObject({ kind: 'invalid_argument', field: 'pollingIntervalSeconds' });
    expect((await call<SettingsView>('settings.get')).pollingIntervalSeconds).toBe(60);
    expect(t.pushed.some((m) => m.event === 'settings.changed')).toBe(true);
  });

  it('remote profiles: https only (or loopback), activate, token, back to the sandbox', async () => {
    expect(
      await callError('settings.addProfile', { name: 'Plain', baseUrl: 'http://bank.example.com' }),
    ).toMatchObject({
      kind: 'invalid_argument',
      field: 'baseUrl',
    });
    // A new address takes effect only once the analyst approves it in main's native dialog.
    t.platform.nextConfirmAnswers.push(true);
    let view = await call<SettingsView>('settings.addProfile', {
      name: 'Local bank',
      baseUrl: 'http://127.0.0.1:9',
    });
    expect(t.platform.confirmations.at(-1)).toMatchObject({
      kind: 'bank-origin',
      destination: 'http://127.0.0.1:9',
    });
    const id = view.profiles.find((p) => p.name === 'Local bank')!.id;
    view = await call<SettingsView>('settings.activateProfile', { profileId: id });
    expect(view.activeProfileId).toBe(id);
    expect((await call<SessionStatus>('session.status')).connection).toBe('no_token');
    expect(await callError('session.useSandboxCredential', { credential: 'a-viewer' })).toMatchObject({
      kind: 'invalid_argument',
    });

    view = await call<SettingsView>('vault.setToken', { profileId: id, token: 'remote-token-abcdefgh' });
    expect(view.profiles.find((p) => p.id === id)?.hasToken).toBe(true);
    expect((await call<SessionStatus>('session.status')).connection).toBe('offline');

    view = await call<SettingsView>('settings.updateProfile', { profileId: id, name: 'Local bank 2' });
    expect(view.profiles.find((p) => p.id === id)?.name).toBe('Local bank 2');

    t.platform.nextConfirmAnswers.push(true); // the analyst confirms in main's dialog
    view = await call<SettingsView>('settings.removeProfile', { profileId: id });
    expect(view.activeProfileId).toBe('sandbox');
    expect(view.profiles.some((p) => p.id === id)).toBe(false);
    expect(await t.services.vault.get(id)).toBeNull();
    expect((await call<SessionStatus>('session.status')).connection).toBe('connected');
  });

  it('main pins the embedded sandbox’s webhook key itself; no page can pin one', async () => {
    const pem = t.services.sandbox!.publicKeyPem;
    const view = await call<SettingsView>('settings.get');
    expect(view.profiles.find((p) => p.id === 'sandbox')?.webhookPublicKeyPem?.trim()).toBe(pem.trim());
    // Pinning decides which signatures the receiver trusts: no channel offers it to the renderer.
    expect(
      await callError('settings.setWebhookPublicKey', { profileId: 'sandbox', publicKeyPem: pem }),
    ).toMatchObject({ kind: 'unknown_channel' });
  });

  it('reports a corrupt settings file found at start and lets the analyst dismiss it', async () => {
    const dir = await tempDir();
    await writeFile(path.join(dir, 'settings.json'), 'not json at all');
    const other = await startServices({ dataDir: dir });
    try {
      const d = createDispatcher({
        handlers: other.services.handlers,
        isTrustedSender: () => true,
        log: other.services.log,
      });
      const env = (await d('settings.get', undefined, sender)) as Envelope<SettingsView>;
      if (!env.ok) throw new Error(env.error.message);
      expect(env.value.problems).toHaveLength(1);
      expect(env.value.problems[0]!.message).toMatch(/moved aside/);
      const after = (await d(
        'settings.dismissProblem',
        { id: env.value.problems[0]!.id },
        sender,
      )) as Envelope<SettingsView>;
      expect(after.ok && after.value.problems).toEqual([]);
    } finally {
      await other.close();
    }
  });
});

describe('audit channels', () => {
  it('records writes made through operations, lists them, exports CSV through the save dialog', async () => {
    const A = t.services.sandbox!.fixtures.legal_entities[0]!;
    const tr = await staffOf(t.services).createIncomingTransfer({ legal_entity_id: A.id, amount: '5000' });
    const created = await t.services.operations.createReturnIntent('ipc-return-1', {
      transfer_return_type: 'SWIFT_FI_TO_FI_RETURN',
      transaction_id: tr.transaction_id,
      return_amount: '5000',
      status_reason_code: 'AM09',
    });
    await t.services.operations.audited({ operation: 'return.confirm', target: created.transactionId }, () =>
      t.services.bank.confirmReturn(created.transactionId),
    );
    await expect(
      t.services.operations.audited({ operation: 'return.cancel', target: created.transactionId }, () =>
        t.services.bank.cancelReturn(created.transactionId),
      ),
    ).rejects.toMatchObject({ kind: 'precondition' });

    const list = await call<{
      entries: Array<{ operation: string; outcome: string; who: string; idempotencyKey: string | null }>;
    }>('audit.list', { limit: 3 });
    expect(list.entries.map((e) => [e.operation, e.outcome])).toEqual([
      ['return.cancel', 'failed'],
      ['return.confirm', 'succeeded'],
      ['return.create_intent', 'succeeded'],
    ]);
    expect(list.entries[2]!.idempotencyKey).toBe(created.idempotencyKey);
    expect(list.entries[0]!.who).toContain('admin');
    expect(t.pushed.filter((m) => m.event === 'audit.recorded').length).toBeGreaterThanOrEqual(3);

    const target = path.join(t.dataDir, 'exported.csv');
    t.platform.nextSaveAnswers.push(target);
    const res = await call<{ path: string | null; rows: number }>('audit.exportCsv');
    expect(res.path).toBe(target);
    expect(res.rows).toBeGreaterThanOrEqual(3);
    expect(await readFile(target, 'utf8')).toContain('return.create_intent');
    t.platform.nextSaveAnswers.push(null);
    expect(await call('audit.exportCsv')).toEqual({ path: null, rows: 0 });
    expect(await callError('audit.list', { limit: 0 })).toMatchObject({ kind: 'invalid_argument' });
  });
});
