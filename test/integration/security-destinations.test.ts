import { getEventListeners } from 'node:events';
import { createServer } from 'node:http';
import type { IncomingHttpHeaders, Server } from 'node:http';
import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { BankClient } from '../../src/main/bank/client';
import { createServerClock } from '../../src/main/bank/clock';
import { createDispatcher } from '../../src/main/ipc/dispatcher';
import type { Dispatch } from '../../src/main/ipc/dispatcher';
import { createLogger, memorySink } from '../../src/main/infra/log';
import { createAtRestCodec } from '../../src/main/infra/at-rest';
import { memoryKeyring } from '../support/memory-keyring';
import { channels } from '../../src/shared/ipc/contract';
import type { ChannelName, ChannelResult } from '../../src/shared/ipc/contract';
import type { AppError, Envelope } from '../../src/shared/ipc/errors';
import { startFaultProxy } from '../support/fault-proxy';
import type { FaultProxy } from '../support/fault-proxy';
import { startServices, tempDir } from '../support/services';
import type { TestServices } from '../support/services';
import { staffOf } from '../support/sandbox-staff';
import { pdfDocument } from '../support/documents';

/**
 * Where the token and customer data may go (issue 13, findings 1, 2, 3 and 7), attacked the way a
 * compromised renderer would: through the real dispatcher as the app's main frame, against the
 * real services and the embedded sandbox over HTTP. The attacker's listener is a node:http server
 * on 127.0.0.1 that records everything it receives; each attack must leave it empty (or, where a
 * request is expected, without an Authorization header).
 */

/**
 * An in-process keychain that survives a restart of the services (the tampered-settings case
 * restarts them): these tests are about destinations, the Secret Service is covered by
 * test/integration/vault.test.ts.
 */
const keyring = memoryKeyring();
const keychainEntries = keyring.entries;

interface Received {
  method: string;
  url: string;
  headers: IncomingHttpHeaders;
  body: string;
}

interface Listener {
  url: string;
  origin: string;
  received: Received[];
  /** Answers a request (default: 404 JSON). May be async, e.g. to act while a request waits. */
  handle: (r: Received) => Promise<{ status: number; body?: unknown }> | { status: number; body?: unknown };
  close(): Promise<void>;
}

async function startListener(): Promise<Listener> {
  const received: Received[] = [];
  const l: Listener = {
    url: '',
    origin: '',
    received,
    handle: () => ({ status: 404, body: { error: { code: '404', status: 'NOT_FOUND', message: 'no' } } }),
    close: async () => undefined,
  };
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const r: Received = {
        method: req.method ?? '',
        url: req.url ?? '',
        headers: req.headers,
        body: Buffer.concat(chunks).toString('utf8'),
      };
      received.push(r);
      void Promise.resolve(l.handle(r)).then(({ status, body }) => {
        res.writeHead(status, { 'content-type': 'application/json', date: new Date().toUTCString() });
        res.end(body === undefined ? '' : JSON.stringify(body));
      });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  if (!address || typeof address === 'string') throw new Error('no port');
  l.origin = `http://127.0.0.1:${address.port}`;
  l.url = l.origin;
  l.close = () =>
    new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    });
  return l;
}

let t: TestServices;
let dispatch: Dispatch;
let attacker: Listener;
const sender = { url: 'app://desk/index.html', isMainFrame: true };

function dispatcherFor(s: TestServices): Dispatch {
  return createDispatcher({
    handlers: s.services.handlers,
    isTrustedSender: () => true,
    log: s.services.log,
  });
}

async function call<C extends ChannelName>(
  channel: C,
  args?: unknown,
  d = dispatch,
): Promise<ChannelResult<C>> {
  const env = (await d(channel, args, sender)) as Envelope<ChannelResult<C>>;
  if (!env.ok) throw Object.assign(new Error(env.error.message), env.error);
  expect(channels[channel].result.safeParse(env.value).success, `${channel} matches the contract`).toBe(true);
  return env.value;
}

async function refused(channel: ChannelName, args?: unknown, d = dispatch): Promise<AppError> {
  const env = (await d(channel, args, sender)) as Envelope<unknown>;
  if (env.ok) throw new Error(`${channel} was accepted`);
  return env.error;
}

beforeAll(async () => {
  t = await startServices({ keyring, bankAllowList: null, rfis: { poll: { intervalMs: 3_600_000 } } });
  dispatch = dispatcherFor(t);
  await t.services.session.check();
});
afterAll(() => t.close());

beforeAll(async () => {
  attacker = await startListener();
});
afterAll(() => attacker.close());
afterEach(async () => {
  // Every test leaves the embedded sandbox active again.
  if (t.services.session.profile.id !== 'sandbox')
    await call('settings.activateProfile', { profileId: 'sandbox' });
});

const A = () => t.services.sandbox!.fixtures.legal_entities[0]!;

describe('finding 1: the token cannot be moved to another host', () => {
  it('settings.updateProfile takes no baseUrl: the channel refuses it and nothing moves', async () => {
    t.platform.nextConfirmAnswers.push(true);
    const proxy = await startFaultProxy(t.services.sandbox!.url);
    try {
      const view = await call('settings.addProfile', { name: 'Real bank', baseUrl: proxy.url });
      const id = view.profiles.find((p) => p.name === 'Real bank')!.id;
      await call('vault.setToken', { profileId: id, token: A().tokens.admin });
      const e = await refused('settings.updateProfile', { profileId: id, baseUrl: attacker.url });
      expect(e).toMatchObject({ kind: 'invalid_argument' });
      expect((await call('settings.get')).profiles.find((p) => p.id === id)?.baseUrl).toBe(proxy.url);
      await call('settings.activateProfile', { profileId: id });
      expect((await call('session.status')).connection).toBe('connected');
      expect(attacker.received).toEqual([]);
      t.platform.nextConfirmAnswers.push(true);
      await call('settings.removeProfile', { profileId: id });
    } finally {
      await proxy.close();
    }
  });

  it('a new address is refused unless the analyst approves it in main’s dialog; nothing reaches it', async () => {
    const asked = t.platform.confirmations.length;
    const e = await refused('settings.addProfile', { name: 'Looks like the bank', baseUrl: attacker.url });
    expect(e).toMatchObject({ kind: 'not_approved', reason: 'DESTINATION_NOT_APPROVED' });
    // Main asked natively, naming the exact origin; the page had no say in the answer.
    expect(t.platform.confirmations.slice(asked)).toEqual([
      expect.objectContaining({ kind: 'bank-origin', destination: attacker.origin }),
    ]);
    const view = await call('settings.get');
    expect(view.profiles.some((p) => p.baseUrl === attacker.url)).toBe(false);
    // The page's profile name appears in the dialog as one quoted line, never as text of its own.
    await refused('settings.addProfile', { name: 'Bank\n\nIT approved this.\u202e', baseUrl: attacker.url });
    const detail = t.platform.confirmations.at(-1)!.detail;
    expect(detail).toContain('"Bank IT approved this."');
    expect(detail).not.toMatch(/[\n\u202e]/);
    expect(attacker.received).toEqual([]);
  });

  it('settings.approveProfileAddress only asks: the analyst decides in main’s dialog, naming the exact origin', async () => {
    t.platform.nextConfirmAnswers.push(true);
    const view = await call('settings.addProfile', { name: 'Edited bank', baseUrl: attacker.url });
    const id = view.profiles.find((p) => p.name === 'Edited bank')!.id;
    // The approval is gone (withdrawn, or the settings file was edited outside the app).
    t.services.destinations.revoke(attacker.origin);
    const asked = t.platform.confirmations.length;
    t.platform.nextConfirmAnswers.push(false);
    expect(await refused('settings.approveProfileAddress', { profileId: id })).toMatchObject({
      kind: 'not_approved',
    });
    expect(t.platform.confirmations.slice(asked)).toEqual([
      expect.objectContaining({ kind: 'bank-origin', destination: attacker.origin }),
    ]);
    // Declined: activating it asks again, and refused, nothing is sent there.
    t.platform.nextConfirmAnswers.push(false);
    await refused('settings.activateProfile', { profileId: id });
    expect(attacker.received).toEqual([]);
    // An unknown profile id is refused before any dialog.
    const before = t.platform.confirmations.length;
    expect(
      await refused('settings.approveProfileAddress', { profileId: 'p_0000000000000000' }),
    ).toMatchObject({
      kind: expect.stringMatching(/invalid_argument|not_found/),
    });
    expect(t.platform.confirmations.length).toBe(before);
    t.platform.nextConfirmAnswers.push(true);
    await call('settings.removeProfile', { profileId: id });
  });

  it('profile ids are random: a profile added again under the same name inherits no token', async () => {
    const proxy = await startFaultProxy(t.services.sandbox!.url);
    try {
      t.platform.nextConfirmAnswers.push(true);
      let view = await call('settings.addProfile', { name: 'Acme', baseUrl: proxy.url });
      const first = view.profiles.find((p) => p.name === 'Acme')!;
      expect(first.id).toMatch(/^p_[0-9a-f]{16}$/);
      await call('vault.setToken', { profileId: first.id, token: A().tokens.admin });
      t.platform.nextConfirmAnswers.push(true);
      await call('settings.removeProfile', { profileId: first.id });
      // The keychain delete "failed": the old entry is still there under the old id.
      await t.services.vault.set(first.id, A().tokens.admin);
      t.platform.nextConfirmAnswers.push(true); // the removal withdrew the approval: asked again
      view = await call('settings.addProfile', { name: 'Acme', baseUrl: proxy.url });
      const second = view.profiles.find((p) => p.name === 'Acme')!;
      expect(second.id).not.toBe(first.id);
      expect(second.hasToken).toBe(false);
      t.platform.nextConfirmAnswers.push(true);
      await call('settings.removeProfile', { profileId: second.id });
      await t.services.vault.delete(first.id);
    } finally {
      await proxy.close();
    }
  });

  it('a stored token is replaced only with the analyst’s native confirmation: declined, the bank keeps getting the old one', async () => {
    const proxy = await startFaultProxy(t.services.sandbox!.url);
    try {
      t.platform.nextConfirmAnswers.push(true);
      const view = await call('settings.addProfile', { name: 'Replace', baseUrl: proxy.url });
      const id = view.profiles.find((p) => p.name === 'Replace')!.id;
      await call('vault.setToken', { profileId: id, token: A().tokens.admin });
      const asked = t.platform.confirmations.length;
      // The page tries to swap in a credential the analyst never entered; main asks, nobody approves.
      const e = await refused('vault.setToken', { profileId: id, token: 'page-chosen-token-0123456789' });
      expect(e).toMatchObject({ kind: 'not_approved', reason: 'TOKEN_REPLACE_DECLINED' });
      expect(t.platform.confirmations.slice(asked).map((c) => c.kind)).toEqual(['token-replace']);
      expect(await t.services.vault.get(id)).toBe(A().tokens.admin);
      // The bank still receives the analyst's token only.
      proxy.seen.length = 0;
      await call('settings.activateProfile', { profileId: id });
      expect((await call('session.status')).connection).toBe('connected');
      expect(proxy.seen.length).toBeGreaterThan(0);
      expect(proxy.seen.every((r) => r.headers.authorization === `Bearer ${A().tokens.admin}`)).toBe(true);
      // Confirmed, the new token replaces it.
      t.platform.nextConfirmAnswers.push(true);
      await call('vault.setToken', { profileId: id, token: A().tokens.viewer! });
      expect(await t.services.vault.get(id)).toBe(A().tokens.viewer);
      t.platform.nextConfirmAnswers.push(true);
      await call('settings.removeProfile', { profileId: id });
    } finally {
      await proxy.close();
    }
  });

  it('removing a profile says what it loses, asks natively, withdraws its address approval and deletes its queued work', async () => {
    const proxy = await startFaultProxy(t.services.sandbox!.url);
    try {
      const origin = new URL(proxy.url).origin;
      t.platform.nextConfirmAnswers.push(true);
      const view = await call('settings.addProfile', { name: 'Leaving', baseUrl: proxy.url });
      const id = view.profiles.find((p) => p.name === 'Leaving')!.id;
      await call('vault.setToken', { profileId: id, token: A().tokens.admin });
      await call('settings.activateProfile', { profileId: id });
      // An answer queued for it while its bank is unreachable.
      const sb = t.services.sandbox!;
      const res = await fetch(`${sb.url}/v1/sandbox/rfis`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...sb.controlHeaders() },
        body: JSON.stringify({
          type: 'account',
          related_id: A().accounts[0]!.id,
          description: 'removal test',
          questions: [{ question_type: 'transaction.purpose', question_text: 'Why?' }],
        }),
      });
      const rfi = (await res.json()) as { id: string; questions: Array<{ id: string }> };
      await t.services.rfis.sync('sync', true);
      proxy.rules.push(() => ({ kind: 'drop' }));
      await call('answers.submit', {
        profileId: id,
        rfiId: rfi.id,
        questionId: rfi.questions[0]!.id,
        questionType: 'transaction.purpose',
        text: 'never sent',
        files: [],
      });
      // Declined: nothing changes.
      const asked = t.platform.confirmations.length;
      const kept = await call('settings.removeProfile', { profileId: id });
      expect(kept.profiles.some((p) => p.id === id)).toBe(true);
      const dialog = t.platform.confirmations[asked]!;
      expect(dialog.kind).toBe('profile-remove');
      expect(dialog.detail).toMatch(/1 queued answer /);
      expect(await t.services.vault.get(id)).toBe(A().tokens.admin);
      // Confirmed: token, approval, queued answers and caches go.
      t.platform.nextConfirmAnswers.push(true);
      const after = await call('settings.removeProfile', { profileId: id });
      expect(after.profiles.some((p) => p.id === id)).toBe(false);
      expect(await t.services.vault.get(id)).toBeNull();
      expect(t.services.destinations.approval(origin)).toBeNull();
      expect(t.services.rfiAnswers.outbox.list().filter((a) => a.bank?.profileId === id)).toEqual([]);
      // Adding the address again asks again (declined here: no profile is added).
      const before = t.platform.confirmations.length;
      expect(await refused('settings.addProfile', { name: 'Back', baseUrl: proxy.url })).toMatchObject({
        kind: 'not_approved',
      });
      expect(t.platform.confirmations.slice(before).map((c) => [c.kind, c.destination])).toEqual([
        ['bank-origin', origin],
      ]);
    } finally {
      await proxy.close();
    }
  });

  it('the client never attaches a token to an origin it was not entered for', async () => {
    const log = createLogger(memorySink(), 'debug');
    const bank = new BankClient({
      identity: async () => ({
        baseUrl: attacker.url,
        token: 'token-for-the-real-bank-123',
        tokenOrigin: 'https://api.bank.example',
      }),
      log,
      clock: createServerClock(),
      retry: { attempts: 1 },
    });
    await expect(bank.listRfis({ page_size: '1' })).rejects.toMatchObject({
      kind: 'unauthenticated',
      reason: 'TOKEN_ORIGIN_MISMATCH',
    });
    expect(attacker.received).toEqual([]);
  });

  it('a settings file changed behind the app’s back: the token is not sent to the new host and is dropped', async () => {
    const dataDir = await tempDir();
    const proxy = await startFaultProxy(t.services.sandbox!.url);
    let s = await startServices({ dataDir, keyring, bankAllowList: null, environment: undefined });
    try {
      s.platform.nextConfirmAnswers.push(true);
      const d = dispatcherFor(s);
      const view = await call('settings.addProfile', { name: 'Bank', baseUrl: proxy.url }, d);
      const id = view.profiles.find((p) => p.name === 'Bank')!.id;
      await call('vault.setToken', { profileId: id, token: A().tokens.admin }, d);
      await call('settings.activateProfile', { profileId: id }, d);
      expect((await call('session.status', undefined, d)).connection).toBe('connected');
      await s.stop();

      // A local process running as the analyst (so it can read the data key from the unlocked
      // keychain and seal like the app) rewrites the profile's address and even marks the new
      // origin approved. Without the key such an edit is refused as tampered (at-rest-attacks).
      const key = (await startServices({
        dataDir,
        keyring,
        bankAllowList: null,
        environment: undefined,
      }).then(async (peek) => {
        const k = peek.services.vault.dataKey();
        await peek.stop();
        return k;
      }))!;
      const forger = createAtRestCodec(key, {
        root: dataDir,
        generations: { current: () => 1_000_000, advance: () => undefined },
      });
      const readSealedJson = async (file: string): Promise<unknown> =>
        JSON.parse(forger.open(await readFile(file, 'utf8')).text);
      const writeSealedJson = (file: string, value: unknown): Promise<void> =>
        writeFile(file, forger.seal(JSON.stringify(value), file));
      const settingsFile = path.join(dataDir, 'settings.json');
      const settings = (await readSealedJson(settingsFile)) as {
        profiles: Array<{ id: string; baseUrl: string; tokenOrigin?: string | null }>;
      };
      settings.profiles.find((p) => p.id === id)!.baseUrl = attacker.url;
      await writeSealedJson(settingsFile, settings);
      const approvalsFile = path.join(dataDir, 'state', 'approved-bank-origins.json');
      const approvals = (await readSealedJson(approvalsFile)) as {
        origins: Array<{ origin: string; how: string; at: string }>;
      };
      approvals.origins.push({ origin: attacker.origin, how: 'analyst', at: new Date().toISOString() });
      await writeSealedJson(approvalsFile, approvals);

      s = await startServices({ dataDir, keyring, bankAllowList: null, environment: undefined });
      const status = await s.services.session.check();
      expect(status.environment.baseUrl).toBe(attacker.url);
      expect(status.connection).toBe('no_token');
      expect(attacker.received.filter((r) => r.headers.authorization !== undefined)).toEqual([]);
      expect(await s.services.vault.get(id)).toBeNull();
    } finally {
      await s.close();
      await proxy.close();
      t.platform.nextConfirmAnswers.length = 0;
    }
  });
  it('a settings file from before approvals: its active bank is asked about natively and sent nothing until approved', async () => {
    const dataDir = await tempDir();
    const proxy = await startFaultProxy(t.services.sandbox!.url);
    await writeFile(
      path.join(dataDir, 'settings.json'),
      JSON.stringify({
        version: 1,
        activeProfileId: 'acme-bank',
        profiles: [
          {
            id: 'sandbox',
            name: 'Embedded sandbox',
            kind: 'embedded-sandbox',
            baseUrl: '',
            webhookPublicKeyPem: null,
            sandboxCredential: 'a-admin',
          },
          {
            id: 'acme-bank',
            name: 'Acme',
            kind: 'remote',
            baseUrl: proxy.url,
            webhookPublicKeyPem: null,
            sandboxCredential: 'a-admin',
          },
        ],
        pollingIntervalSeconds: 30,
        notifications: { newRfi: true, rfiStatus: true, transactionStatus: true, quoteExpiry: true },
      }),
    );
    keychainEntries.set(`td-legacy-test\u0000acme-bank`, A().tokens.admin);
    const s = await startServices({
      dataDir,
      keyring,
      keyringService: 'td-legacy-test',
      bankAllowList: null,
      environment: undefined,
      rfis: { poll: { intervalMs: 3_600_000 } },
    });
    try {
      await expect.poll(() => s.platform.confirmations.length).toBe(1);
      expect(s.platform.confirmations[0]).toMatchObject({ kind: 'bank-origin', destination: proxy.url });
      const status = await s.services.session.check({ fresh: true });
      expect(status).toMatchObject({ connection: 'error' });
      expect(status.problem).toMatch(/not been approved/);
      expect(proxy.seen).toEqual([]);

      s.platform.nextConfirmAnswers.push(true);
      const d = dispatcherFor(s);
      await call('settings.activateProfile', { profileId: 'acme-bank' }, d);
      expect((await call('session.status', undefined, d)).connection).toBe('connected');
      // Its token was bound to the profile's own origin when the old file was opened.
      expect(
        (await call('settings.get', undefined, d)).profiles.find((p) => p.id === 'acme-bank'),
      ).toMatchObject({ tokenOrigin: proxy.url, hasToken: true });
      expect(proxy.seen.length).toBeGreaterThan(0);
    } finally {
      await s.close();
      await proxy.close();
      keychainEntries.delete(`td-legacy-test\u0000acme-bank`);
    }
  });
});

describe('happy path: an approved bank works, approved once', () => {
  it('the analyst approves the address natively; the profile connects with its token; no second question', async () => {
    const proxy = await startFaultProxy(t.services.sandbox!.url);
    try {
      const asked = t.platform.confirmations.length;
      t.platform.nextConfirmAnswers.push(true);
      const view = await call('settings.addProfile', { name: 'Staging bank', baseUrl: `${proxy.url}/` });
      const p = view.profiles.find((x) => x.name === 'Staging bank')!;
      expect(p).toMatchObject({ baseUrl: proxy.url, hasToken: false, tokenOrigin: null });
      await call('vault.setToken', { profileId: p.id, token: A().tokens.admin });
      await call('settings.activateProfile', { profileId: p.id });
      const status = await call('session.status');
      expect(status).toMatchObject({ connection: 'connected', credential: { role: 'admin' } });
      const bound = (await call('settings.get')).profiles.find((x) => x.id === p.id)!;
      expect(bound).toMatchObject({ hasToken: true, tokenOrigin: proxy.url });
      expect(proxy.seen.every((r) => r.headers.authorization === `Bearer ${A().tokens.admin}`)).toBe(true);
      // Switching back and forth asks nothing more: the approval is kept per origin.
      await call('settings.activateProfile', { profileId: 'sandbox' });
      await call('settings.activateProfile', { profileId: p.id });
      expect(t.platform.confirmations.slice(asked).map((c) => c.destination)).toEqual([proxy.url]);
      expect(t.services.destinations.approval(proxy.url)).toBe('analyst');
      t.platform.nextConfirmAnswers.push(true);
      await call('settings.removeProfile', { profileId: p.id });
    } finally {
      await proxy.close();
    }
  });

  it('an administrator’s allow-list file outside the data folder approves without a dialog', async () => {
    const proxy = await startFaultProxy(t.services.sandbox!.url);
    const dir = await tempDir();
    const list = path.join(dir, 'bank-allowlist.json');
    await writeFile(
      list,
      JSON.stringify({ origins: [proxy.url, 'http://bank.example.com', 'https://x.example/path'] }),
    );
    const s = await startServices({ keyring, bankAllowList: list });
    try {
      expect(s.services.destinations.allowList.origins).toEqual([proxy.url]);
      const d = dispatcherFor(s);
      const view = await call('settings.addProfile', { name: 'Listed', baseUrl: proxy.url }, d);
      const id = view.profiles.find((p) => p.name === 'Listed')!.id;
      await call('vault.setToken', { profileId: id, token: A().tokens.admin }, d);
      await call('settings.activateProfile', { profileId: id }, d);
      expect((await call('session.status', undefined, d)).connection).toBe('connected');
      expect(s.platform.confirmations).toEqual([]);
    } finally {
      await s.close();
      await proxy.close();
    }
  });
});

describe('finding 2: one request, one identity', () => {
  it('a GET retried after a 5xx while the analyst switches the default profile keeps its own host and token: the new token never reaches the old host', async () => {
    const oldToken = 'old-bank-token-0123456789';
    let switched = false;
    const oldHost = await startListener();
    oldHost.handle = async (r) => {
      if (r.url.startsWith('/v1/webhook/url')) {
        return {
          status: 200,
          body: {
            webhook_name: 'old bank',
            webhook_url: '',
            legal_entity_id: 'le_old',
            role: 'admin',
            created_at: '2026-01-01T00:00:00Z',
            updated_at: '2026-01-01T00:00:00Z',
          },
        };
      }
      if (r.url.startsWith('/v1/transactions/') && !switched) {
        // The analyst switches to the embedded sandbox while this GET waits for its answer.
        switched = true;
        await call('settings.activateProfile', { profileId: 'sandbox' });
        return { status: 503, body: { error: { code: '503', status: 'UNAVAILABLE', message: 'busy' } } };
      }
      return { status: 503, body: { error: { code: '503', status: 'UNAVAILABLE', message: 'busy' } } };
    };
    try {
      t.platform.nextConfirmAnswers.push(true);
      const view = await call('settings.addProfile', { name: 'Old bank', baseUrl: oldHost.url });
      const id = view.profiles.find((p) => p.name === 'Old bank')!.id;
      await call('vault.setToken', { profileId: id, token: oldToken });
      await call('settings.activateProfile', { profileId: id });
      expect((await call('session.status')).connection).toBe('connected');

      // The lookup belongs to the profile it started on: its retries stay with that profile's
      // host and token (switching the default profile moves nothing in flight), then it fails.
      const e = await refused('returns.lookup', { profileId: id, transactionId: 'txn_old_1' });
      expect(e).toMatchObject({ kind: 'server' });
      expect(switched).toBe(true);
      expect(t.services.session.profile.id).toBe('sandbox');
      const lookups = oldHost.received.filter((r) => r.url.startsWith('/v1/transactions/'));
      expect(lookups.length).toBeGreaterThan(1);
      const auth = oldHost.received.map((r) => r.headers.authorization);
      expect(new Set(auth)).toEqual(new Set([`Bearer ${oldToken}`]));
      expect(auth).not.toContain(`Bearer ${A().tokens.admin}`);
      t.platform.nextConfirmAnswers.push(true);
      await call('settings.removeProfile', { profileId: id });
    } finally {
      await oldHost.close();
    }
  });
});

describe('finding 2: the client takes its identity once per request', () => {
  it('a retried GET asks for base URL and token once, and every attempt carries that same pair', async () => {
    const host = await startListener();
    let attempts = 0;
    host.handle = () =>
      ++attempts < 3
        ? { status: 503, body: { error: { code: '503', status: 'UNAVAILABLE', message: 'busy' } } }
        : { status: 200, body: { data: [], next_page_token: null } };
    let identities = 0;
    const tokens = ['first-token-0123456789', 'second-token-0123456789'];
    const bank = new BankClient({
      identity: async () => ({
        baseUrl: host.url,
        // A different token each time it is asked: a retry that asked again would show it.
        token: tokens[identities++ % 2]!,
        tokenOrigin: host.origin,
      }),
      log: createLogger(memorySink(), 'debug'),
      clock: createServerClock(),
      retry: { baseDelayMs: 5, maxDelayMs: 10 },
    });
    try {
      await bank.listRfis({ page_size: '1' });
      expect(identities).toBe(1);
      expect(host.received.map((r) => r.headers.authorization)).toEqual([
        'Bearer first-token-0123456789',
        'Bearer first-token-0123456789',
        'Bearer first-token-0123456789',
      ]);
    } finally {
      await host.close();
    }
  });
});

describe('the environment’s abort signal', () => {
  it('lives as long as the profile: requests leave no listener behind on it', async () => {
    const host = await startListener();
    host.handle = () => ({ status: 200, body: { data: [], next_page_token: null } });
    const environment = new AbortController();
    const bank = new BankClient({
      identity: async () => ({
        baseUrl: host.url,
        token: 'a-token-0123456789',
        tokenOrigin: host.origin,
        signal: environment.signal,
      }),
      log: createLogger(memorySink(), 'debug'),
      clock: createServerClock(),
    });
    try {
      for (let i = 0; i < 20; i++) {
        await bank.listRfis({ page_size: '1' }, { signal: new AbortController().signal });
      }
      expect(host.received).toHaveLength(20);
      expect(getEventListeners(environment.signal, 'abort')).toHaveLength(0);
      environment.abort(new Error('switched'));
      await expect(bank.listRfis({ page_size: '1' })).rejects.toThrow('switched');
      expect(host.received).toHaveLength(20);
    } finally {
      await host.close();
    }
  });
});

describe('finding 3: main is no open proxy', () => {
  it('no token can be stored for a profile that does not exist, and an address nobody approved is never added', async () => {
    expect(
      await refused('vault.setToken', { profileId: 'p_0000000000000000', token: 'x-token-123456' }),
    ).toMatchObject({ kind: 'not_found' });
    const e = await refused('settings.addProfile', { name: 'Exfil', baseUrl: `${attacker.url}/v1` });
    expect(e.kind).toBe('not_approved');
    expect(t.services.session.profile.id).toBe('sandbox');
    expect(attacker.received).toEqual([]);
  });

  it('a page cannot stack dialogs: while one waits for the analyst, another request is refused', async () => {
    const original = t.platform.confirmDestination;
    let answer: (ok: boolean) => void = () => undefined;
    t.platform.confirmDestination = (request) => {
      t.platform.confirmations.push(request);
      return new Promise<boolean>((resolve) => {
        answer = resolve;
      });
    };
    try {
      const first = dispatch('settings.addProfile', { name: 'One', baseUrl: attacker.url }, sender);
      await expect.poll(() => t.platform.confirmations.at(-1)?.destination).toBe(attacker.origin);
      const asked = t.platform.confirmations.length;
      for (let i = 0; i < 5; i++) {
        expect(
          await refused('settings.addProfile', {
            name: `Spam ${i}`,
            baseUrl: `http://127.0.0.1:${9000 + i}`,
          }),
        ).toMatchObject({ kind: 'not_approved', reason: 'APPROVAL_PENDING' });
        expect(
          await refused('webhook.setUrl', { target: 'url', url: `${attacker.url}/hook${i}` }),
        ).toMatchObject({
          kind: 'not_approved',
          reason: 'APPROVAL_PENDING',
        });
      }
      expect(t.platform.confirmations).toHaveLength(asked);
      answer(false);
      expect(await first).toMatchObject({ ok: false, error: { kind: 'not_approved' } });
    } finally {
      t.platform.confirmDestination = original;
    }
    expect(attacker.received).toEqual([]);
  });

  it('webhook.setUrl: plain http to a remote host is refused; another URL needs the native confirmation', async () => {
    await expect.poll(() => t.services.webhooks.status().autoConfigure?.state).toBe('done');
    const receiverUrl = t.services.webhooks.receiver.url;
    expect(
      await refused('webhook.setUrl', { target: 'url', url: 'http://desk.example.com/hook' }),
    ).toMatchObject({
      kind: 'invalid_argument',
      field: 'url',
    });
    const asked = t.platform.confirmations.length;
    const hook = `${attacker.url}/hook`;
    expect(await refused('webhook.setUrl', { target: 'url', url: hook })).toMatchObject({
      kind: 'not_approved',
    });
    expect(t.platform.confirmations.slice(asked)).toEqual([
      expect.objectContaining({ kind: 'webhook-url', destination: hook }),
    ]);
    expect(await refused('webhook.setUrl', { url: hook })).toMatchObject({ kind: 'invalid_argument' });
    expect(await refused('webhook.setUrl', { target: 'receiver', url: hook })).toMatchObject({
      kind: 'invalid_argument',
    });
    // The page sees this app's receiver with the route's path hidden.
    expect((await call('webhook.config')).config?.webhook_url).toBe(
      `${new URL(receiverUrl!).origin}/webhooks/rfi/…`,
    );

    // The bank's events still come to this app's receiver, none to the attacker.
    const accepted = t.services.webhooks.status().accepted;
    await staffOf(t.services).createRfi({
      type: 'account',
      related_id: A().accounts[0]!.id,
      questions: [{ question_type: 'transaction.purpose', question_text: 'Purpose?' }],
    });
    await expect
      .poll(() => t.services.webhooks.status().accepted, { timeout: 10_000 })
      .toBeGreaterThan(accepted);
    expect(attacker.received).toEqual([]);
  });
});

describe('finding 7: ids and upload URLs', () => {
  let proxy: FaultProxy;
  beforeAll(async () => {
    proxy = await startFaultProxy(t.services.sandbox!.url);
  });
  afterAll(() => proxy.close());

  it('ids "." and "..", with a slash or a percent are refused at the channel and again in the client', async () => {
    t.platform.nextConfirmAnswers.push(true);
    const view = await call('settings.addProfile', { name: 'Recorded bank', baseUrl: proxy.url });
    const id = view.profiles.find((p) => p.name === 'Recorded bank')!.id;
    await call('vault.setToken', { profileId: id, token: A().tokens.admin });
    await call('settings.activateProfile', { profileId: id });
    const seen = proxy.seen.length;
    for (const bad of ['.', '..', '...', 'a/b', '../v1', '%2e%2e', 'a?b', 'a#b', '']) {
      expect(await refused('rfis.get', { profileId: id, id: bad, refresh: true })).toMatchObject({
        kind: 'invalid_argument',
      });
      expect(await refused('returns.lookup', { profileId: id, transactionId: bad })).toMatchObject({
        kind: 'invalid_argument',
      });
      expect(await refused('drafts.get', { rfiId: bad })).toMatchObject({ kind: 'invalid_argument' });
      await expect(t.services.bank.getRfi(bad)).rejects.toMatchObject({ kind: 'invalid_argument' });
      await expect(t.services.bank.getTransaction(bad)).rejects.toMatchObject({ kind: 'invalid_argument' });
      await expect(t.services.bank.getDocument(bad)).rejects.toMatchObject({ kind: 'invalid_argument' });
    }
    expect(proxy.seen.slice(seen)).toEqual([]);
    // A well-formed id still goes through.
    await expect(t.services.bank.getRfi(A().rfi_ids[0]!)).resolves.toMatchObject({ id: A().rfi_ids[0] });
    t.platform.nextConfirmAnswers.push(true);
    await call('settings.removeProfile', { profileId: id });
  });

  it('an upload URL must be https unless it is loopback: plain http to another host sends nothing', async () => {
    const file = path.join(await tempDir(), 'doc.pdf');
    await writeFile(file, pdfDocument(300, 1));
    for (const url of [
      'http://uploads.bank.example/put?sig=1',
      'ftp://127.0.0.1/x',
      `http://user:pw@127.0.0.1:${new URL(attacker.url).port}/x`,
    ]) {
      await expect(t.services.bank.uploadDocument(url, file, 'application/pdf')).rejects.toMatchObject({
        kind: 'invalid_argument',
        field: 'url',
      });
    }
    expect(attacker.received).toEqual([]);
  });
});
