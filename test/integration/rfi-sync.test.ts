import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSandbox } from '../../src/sandbox';
import { createDispatcher } from '../../src/main/ipc/dispatcher';
import type { Dispatch } from '../../src/main/ipc/dispatcher';
import { channels } from '../../src/shared/ipc/contract';
import type { ChannelName, ChannelResult } from '../../src/shared/ipc/contract';
import type { Envelope } from '../../src/shared/ipc/errors';
import { startFaultProxy } from '../support/fault-proxy';
import { startServices, tempDir } from '../support/services';
import type { TestServices } from '../support/services';
import { memoryKeyring } from '../support/memory-keyring';
import { staffOf } from '../support/sandbox-staff';

/**
 * An in-process keychain: these tests are about RFIs, not the Secret Service (covered by
 * test/integration/vault.test.ts), and must not depend on a session bus shared with other runs.
 */
const keyring = memoryKeyring();

/** The RFI cache end to end: services on the embedded sandbox, through the dispatcher. */
let t: TestServices;
let dispatch: Dispatch;
const sender = { url: 'app://desk/index.html', isMainFrame: true };

async function call<C extends ChannelName>(channel: C, args?: unknown): Promise<ChannelResult<C>> {
  const env = (await dispatch(channel, args, sender)) as Envelope<ChannelResult<C>>;
  if (!env.ok) throw Object.assign(new Error(env.error.message), env.error);
  expect(channels[channel].result.safeParse(env.value).success, `${channel} matches the contract`).toBe(true);
  return env.value;
}

beforeAll(async () => {
  t = await startServices({
    keyring,
    rfis: { poll: { intervalMs: 3_600_000 } },
  });
  dispatch = createDispatcher({
    handlers: t.services.handlers,
    isTrustedSender: () => true,
    log: t.services.log,
  });
  await t.services.rfis.ready();
});
afterAll(() => t.close());
/** The profile that owns the embedded sandbox's RFIs (every row says it). */
const own = (): string => t.services.session.profile.id;

describe('rfis.list / rfis.get', () => {
  it('lists every seeded RFI of legal entity A from the cache with derived fields', async () => {
    const seeded = t.services.sandbox!.fixtures.legal_entities[0]!.rfi_ids;
    const res = await call('rfis.list');
    expect(res.items.map((i) => i.id).sort()).toEqual([...seeded].sort());
    expect(res.total).toBe(seeded.length);
    expect(res.counts.total).toBe(seeded.length);
    expect(res.sync.lastMode).toBe('full');
    for (const row of res.items) {
      expect(['on_track', 'at_risk', 'breached', 'none']).toContain(row.band);
      expect(row.unread).toBe(true);
    }
  });

  it('answers one RFI with its questions, and not_found for an unknown id', async () => {
    const list = await call('rfis.list');
    const first = list.items[0]!;
    const d = await call('rfis.get', { profileId: own(), id: first.id });
    expect(d.rfi.id).toBe(first.id);
    expect(d.rfi.questions.length).toBe(first.questionTotal);
    expect(d.fromCache).toBe(true);
    // A local read while the bank answers syncs is not "the bank could not be reached".
    expect(d.bankUnreachable).toBe(false);
    await expect(call('rfis.get', { profileId: own(), id: 'rfi_nope' })).rejects.toMatchObject({
      kind: 'not_found',
    });
  });
});

describe('rfis.list filters, rfis.markSeen and unread markers', () => {
  it('filters and sorts in main, windows with offset/limit, and refuses unknown arguments', async () => {
    const all = await call('rfis.list');
    const statuses = Object.keys(all.counts.byStatus);
    const status = statuses[0]!;
    const some = await call('rfis.list', { status: [status] });
    expect(some.total).toBe(all.counts.byStatus[status]);
    expect(some.items.every((r) => r.status === status)).toBe(true);
    const windowed = await call('rfis.list', { offset: 1, limit: 2 });
    expect(windowed.items.map((r) => r.id)).toEqual(all.items.slice(1, 3).map((r) => r.id));
    expect(windowed.total).toBe(all.total);
    // deadline order: running deadlines first, earliest on top
    const deadlines = all.items.map((r) => r.deadline).filter((d): d is string => d !== null);
    expect(deadlines).toEqual([...deadlines].sort());
    expect(all.items.slice(0, deadlines.length).every((r) => r.deadline !== null)).toBe(true);
    const env = await dispatch('rfis.list', { colour: 'red' }, sender);
    expect(env).toMatchObject({ ok: false, error: { kind: 'invalid_argument' } });
  });

  it('markSeen clears the unread marker until the RFI changes again', async () => {
    const le = t.services.sandbox!.fixtures.legal_entities[0]!;
    const made = (await staffOf(t.services).createRfi({
      type: 'account',
      related_id: le.accounts[0]!.id,
      questions: [{ question_type: 'transaction.purpose', question_text: 'Purpose?' }],
    })) as { id: string };
    await call('rfis.sync');
    const rfi = (await call('rfis.get', { profileId: own(), id: made.id })).summary;
    expect(rfi.unread).toBe(true);
    const before = await call('rfis.counts');
    const pushedBefore = t.pushed.length;
    const seen = await call('rfis.markSeen', { profileId: own(), id: rfi.id });
    expect(seen.summary?.unread).toBe(false);
    expect(seen.counts.unread).toBe(before.counts.unread - 1);
    expect(t.pushed.slice(pushedBefore)).toContainEqual(
      expect.objectContaining({
        event: 'rfis.changed',
        payload: expect.objectContaining({ source: 'seen', seen: [rfi.id] }),
      }),
    );
    // the analyst answers, staff asks again: the RFI changed, so it is unread again
    const q = (await call('rfis.get', { profileId: own(), id: rfi.id })).rfi.questions[0]!;
    await t.services.bank.submitRfiResponse(rfi.id, q.id, {
      question_type: q.question_type,
      [q.question_type]: { response_text: 'Rent', document_ids: [] },
    });
    await staffOf(t.services).adminResponse(rfi.id, q.id, { response_text: 'Please add the lease' });
    const fresh = await call('rfis.get', { profileId: own(), id: rfi.id, refresh: true });
    expect(fresh.fromCache).toBe(false);
    expect(fresh.bankUnreachable).toBe(false);
    expect(fresh.summary.unread).toBe(true);
    expect(fresh.lastSeenUpdatedAt).toBe(rfi.updatedAt);
    await expect(call('rfis.markSeen', { profileId: own(), id: 'rfi_unknown' })).rejects.toMatchObject({
      kind: 'not_found',
    });
  });

  it('suspend pauses polling, resume polls at once', async () => {
    const polls = t.services.rfis.poller.polls;
    t.platform.fire('suspend');
    expect(t.services.rfis.syncState().polling).toBe('paused');
    t.platform.fire('resume');
    expect(t.services.rfis.poller.polls).toBe(polls + 1);
    expect(t.services.rfis.syncState().polling).toBe('running');
    await expect.poll(() => t.services.rfis.syncState().state).toBe('idle');
  });
});

describe('webhook.* channels', () => {
  it('config: the credential’s configuration, pointed at the receiver; an admin may set it', async () => {
    await expect.poll(() => t.services.webhooks.status().autoConfigure?.state).toBe('done');
    const v = await call('webhook.config');
    // The page sees the receiver's address with its route's secret path hidden.
    const full = t.services.webhooks.receiver.url!;
    const shown = `${new URL(full).origin}/webhooks/rfi/…`;
    expect(full).toMatch(/\/webhooks\/rfi\/[^/…]{16,}$/);
    expect(v.config).toMatchObject({ role: 'admin', webhook_url: shown });
    expect(v.canSet).toBe(true);
    expect(v.receiver).toMatchObject({ listening: true, environmentId: 'sandbox' });
    expect(v.receiver.pinnedKeyFingerprint).toMatch(/^([0-9A-F]{2}:){31}[0-9A-F]{2}$/);
    // Another URL is set only once the analyst confirms it in main's native dialog.
    await expect(
      call('webhook.setUrl', { target: 'url', url: 'https://desk.example.com/hook' }),
    ).rejects.toMatchObject({ kind: 'not_approved' });
    expect((await call('webhook.config')).config?.webhook_url).toBe(shown);
    t.platform.nextConfirmAnswers.push(true);
    const set = await call('webhook.setUrl', { target: 'url', url: 'https://desk.example.com/hook' });
    expect(set.config?.webhook_url).toBe('https://desk.example.com/hook');
    expect(t.platform.confirmations.map((c) => [c.kind, c.destination])).toEqual([
      ['webhook-url', 'https://desk.example.com/hook'],
      ['webhook-url', 'https://desk.example.com/hook'],
    ]);
    const back = await call('webhook.setUrl', { target: 'receiver' });
    expect(back.config?.webhook_url).toBe(shown);
    await expect(call('webhook.setUrl', { target: 'url', url: 'ftp://x' })).rejects.toMatchObject({
      kind: 'invalid_argument',
    });
    await expect(call('webhook.setUrl', {})).rejects.toMatchObject({ kind: 'invalid_argument' });
    expect(t.platform.confirmations).toHaveLength(2);
    const audit = await call('audit.list', { limit: 20 });
    expect(audit.entries.filter((e) => e.operation === 'webhook.set_url').map((e) => e.outcome)).toEqual([
      'failed',
      'succeeded',
      'succeeded',
      'failed',
    ]);
    const status = await call('webhook.receiverStatus');
    expect(status.url).toBe(shown);
    // No answer the page can get carries the route's path.
    const secret = new URL(full).pathname;
    for (const answer of [status, await call('webhook.config'), await call('audit.list', { limit: 50 })]) {
      expect(JSON.stringify(answer)).not.toContain(secret);
    }
    expect(JSON.stringify(t.pushed)).not.toContain(secret);
  });

  it('a viewer sees the configuration, may not set it, and is told why', async () => {
    await t.services.session.useSandboxCredential('a-viewer');
    try {
      const v = await call('webhook.config');
      expect(v.config?.role).toBe('viewer');
      expect(v.canSet).toBe(false);
      expect(v.cannotSetReason).toContain('admin');
      await expect(
        call('webhook.setUrl', { target: 'url', url: 'https://desk.example.com/hook' }),
      ).rejects.toMatchObject({ kind: 'forbidden' });
      await expect.poll(() => t.services.webhooks.status().autoConfigure?.state).toBe('failed');
      expect(t.services.webhooks.status().autoConfigure?.message).toContain('viewer');
    } finally {
      await t.services.session.useSandboxCredential('a-admin');
    }
  });
});

describe('offline: the cache is shown when the bank cannot be reached', () => {
  it('a restart with the bank down lists the cached RFIs and reports offline', async () => {
    const sb = await startSandbox({ port: 0, visibilityDelayMs: { min: 0, max: 0 } });
    const le = sb.fixtures.legal_entities[0]!;
    const dataDir = await tempDir();
    let run: TestServices | null = null;
    try {
      run = await startServices({
        keyring,
        dataDir,
        environment: { kind: 'remote', baseUrl: sb.url, name: 'Bank', token: le.tokens.admin },
        rfis: { poll: { intervalMs: 3_600_000 } },
        bankRetry: { attempts: 1 },
      });
      await run.services.rfis.ready();
      const online = await run.services.rfis.list({});
      expect(online.total).toBe(le.rfi_ids.length);
      await run.stop();
      await sb.close();

      run = await startServices({
        keyring,
        dataDir,
        environment: { kind: 'remote', baseUrl: sb.url, name: 'Bank' },
        rfis: { poll: { intervalMs: 3_600_000 } },
        bankRetry: { attempts: 1 },
        bankTimeoutMs: 1000,
      });
      await run.services.rfis.ready();
      const offline = await run.services.rfis.list({});
      expect(offline.items.map((r) => r.id).sort()).toEqual(online.items.map((r) => r.id).sort());
      expect(offline.sync.state).toBe('offline');
      expect(offline.sync.lastSyncedAt).toBe(online.sync.lastSyncedAt);
      const one = await run.services.rfis.get(online.items[0]!.id, true);
      expect(one.fromCache).toBe(true);
      expect(one.bankUnreachable).toBe(true);
    } finally {
      await run?.close();
      await sb.close();
    }
  });
});

describe('a real bank that differs from the sandbox', () => {
  it('no webhook endpoint, no updated_since, unknown statuses and types: the queue still fills', async () => {
    const sb = await startSandbox({ port: 0, visibilityDelayMs: { min: 0, max: 0 } });
    const proxy = await startFaultProxy(sb.url);
    const le = sb.fixtures.legal_entities[0]!;
    let run: TestServices | null = null;
    try {
      const err = (status: number, message: string) => ({
        kind: 'respond' as const,
        status,
        body: { error: { code: String(status), status: 'X', message } },
      });
      proxy.rules.push((r) => (r.path.startsWith('/v1/webhook/url') ? err(404, 'no such route') : undefined));
      proxy.rules.push((r) =>
        r.path.startsWith('/v1/rfis?') && r.path.includes('updated_since')
          ? err(400, 'unknown parameter')
          : undefined,
      );
      proxy.rules.push((r) =>
        r.path.startsWith('/v1/rfis?')
          ? {
              kind: 'rewrite',
              fn: (json) => {
                const page = json as { data: Array<Record<string, unknown>> };
                const first = page.data[0];
                if (first)
                  Object.assign(first, { status: 'escalated', type: 'brand_new_type', risk_score: 7 });
                return page;
              },
            }
          : undefined,
      );
      run = await startServices({
        keyring,
        dataDir: await tempDir(),
        environment: { kind: 'remote', baseUrl: proxy.url, name: 'Other bank', token: le.tokens.admin },
        rfis: { poll: { intervalMs: 3_600_000 } },
      });
      await run.services.rfis.ready();
      expect(run.services.session.lastStatus?.connection).toBe('connected');
      expect(run.services.session.credential).toBeNull();
      const list = await run.services.rfis.list({});
      expect(list.total).toBe(le.rfi_ids.length);
      expect(list.counts.byStatus.escalated).toBe(1);
      expect(list.counts.byType.brand_new_type).toBe(1);
      const odd = list.items.find((r) => r.status === 'escalated')!;
      expect((await run.services.rfis.get(odd.id)).rfi).toMatchObject({
        risk_score: 7,
        type: 'brand_new_type',
      });

      const again = await run.services.rfis.sync('sync');
      expect(again.sync).toMatchObject({ state: 'idle', lastMode: 'full', updatedSinceSupported: false });
      const cfg = await run.services.webhooks.config();
      expect(cfg.config).toBeNull();
      expect(cfg.error).toContain('does not offer GET /v1/webhook/url');
      expect(cfg.canSet).toBe(false);
    } finally {
      await run?.close();
      await proxy.close();
      await sb.close();
    }
  });
});
