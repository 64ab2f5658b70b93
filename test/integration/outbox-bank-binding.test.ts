import { rm } from 'node:fs/promises';
import { createServer } from 'node:http';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createDispatcher } from '../../src/main/ipc/dispatcher';
import type { Dispatch } from '../../src/main/ipc/dispatcher';
import { startSandbox } from '../../src/sandbox/index';
import type { RunningSandbox } from '../../src/sandbox/index';
import type { Envelope } from '../../src/shared/ipc/errors';
import type { AnswerView } from '../../src/shared/ipc/channels/rfi-answers';
import type { SettingsView } from '../../src/shared/ipc/channels/settings';
import { startFaultProxy } from '../support/fault-proxy';
import type { FaultProxy } from '../support/fault-proxy';
import { startServices, tempDir } from '../support/services';
import type { TestServices } from '../support/services';

/**
 * An answer queued for bank A while A was unreachable must never go to another bank: a page that
 * adds a profile pointing at its own listener, activates it and calls answers.retry (through the
 * real dispatcher, as the app's main frame) gets nothing of it. Back on A, the answer is delivered
 * once, and the sandbox holds one response.
 */
const sender = { url: 'app://desk/index.html', isMainFrame: true };

interface Seen {
  method: string;
  url: string;
  body: string;
}

let sandbox: RunningSandbox;
let proxy: FaultProxy;
let attacker: Server;
let attackerSeen: Seen[];
let attackerUrl: string;
let t: TestServices;
let dir: string;
let dispatch: Dispatch;

async function call<T>(channel: string, args?: unknown): Promise<T> {
  const env = (await dispatch(channel, args, sender)) as Envelope<T>;
  if (!env.ok) throw Object.assign(new Error(`${channel}: ${env.error.message}`), env.error);
  return env.value;
}

async function until(what: string, check: () => boolean, ms = 10_000): Promise<void> {
  const end = Date.now() + ms;
  while (!check()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

beforeEach(async () => {
  sandbox = await startSandbox({ visibilityDelayMs: { min: 0, max: 0 } });
  proxy = await startFaultProxy(sandbox.url);
  attackerSeen = [];
  attacker = createServer((req, res) => {
    let body = '';
    req.setEncoding('utf8');
    req.on('data', (c: string) => (body += c));
    req.on('end', () => {
      attackerSeen.push({ method: req.method ?? '', url: req.url ?? '', body });
      res.writeHead(404, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ error: { code: 'NOT_FOUND', message: 'nothing here' } }));
    });
  });
  await new Promise<void>((r) => attacker.listen(0, '127.0.0.1', r));
  attackerUrl = `http://127.0.0.1:${(attacker.address() as AddressInfo).port}`;
  dir = await tempDir('td-binding-');
  t = await startServices({
    dataDir: path.join(dir, 'data'),
    environment: {
      kind: 'remote',
      baseUrl: proxy.url,
      name: 'Bank A',
      token: sandbox.fixtures.legal_entities[0]!.tokens.admin!,
    },
    rfiAnswers: { retry: { baseMs: 50, maxMs: 200 } },
    rfis: { autoStart: false },
  });
  dispatch = createDispatcher({
    handlers: t.services.handlers,
    isTrustedSender: () => true,
    log: t.services.log,
  });
});

afterEach(async () => {
  await t.stop();
  // A profile switch leaves RFI cache writes settling; retried until the folder is gone.
  await rm(dir, { recursive: true, force: true, maxRetries: 10, retryDelay: 50 });
  await proxy.close();
  await new Promise((r) => attacker.close(r));
  await sandbox.close();
});

describe('queued answers are bound to their bank', () => {
  it('an answer queued for an unreachable bank is never sent to a profile the page activates, and goes to its own bank when it is back, whatever is active', async () => {
    const res = await fetch(`${sandbox.url}/v1/sandbox/rfis`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...sandbox.controlHeaders() },
      body: JSON.stringify({
        type: 'account',
        related_id: sandbox.fixtures.legal_entities[0]!.accounts[0]!.id,
        description: 'binding test',
        questions: [{ question_type: 'transaction.purpose', question_text: 'Why?' }],
      }),
    });
    const rfi = (await res.json()) as { id: string; questions: Array<{ id: string }> };
    const questionId = rfi.questions[0]!.id;
    const bankA = t.services.session.profile.id;

    // Bank A is unreachable: every connection is dropped.
    proxy.rules.push(() => ({ kind: 'drop' }));
    const marker = `secret-answer-${Date.now()}`;
    const queued = await call<AnswerView>('answers.submit', {
      profileId: bankA,
      rfiId: rfi.id,
      questionId,
      questionType: 'transaction.purpose',
      text: marker,
      files: [],
    });
    expect(queued.bank).toMatchObject({ profileId: bankA, origin: new URL(proxy.url).origin });
    await until(
      'a failed attempt at A',
      () => (t.services.rfiAnswers.outbox.get(queued.id)?.failures ?? 0) > 0,
    );

    // The page points main at its own listener and asks for the answer again. Even with the
    // analyst approving that address (tricked into it), the queued answer stays with its bank.
    t.platform.nextConfirmAnswers.push(true);
    let view = await call<SettingsView>('settings.addProfile', { name: 'Elsewhere', baseUrl: attackerUrl });
    const evil = view.profiles.find((p) => p.name === 'Elsewhere')!.id;
    view = await call<SettingsView>('vault.setToken', { profileId: evil, token: 'attacker-token-123456' });
    view = await call<SettingsView>('settings.activateProfile', { profileId: evil });
    expect(view.activeProfileId).toBe(evil);
    const retried = await call<AnswerView>('answers.retry', { answerId: queued.id });
    t.services.rfiAnswers.outbox.wake();
    await t.services.rfiAnswers.outbox.idle();
    await new Promise((r) => setTimeout(r, 600));
    await t.services.rfiAnswers.outbox.idle();

    // Only the session check reached the listener (with its own token); nothing of the answer.
    const leaked = attackerSeen.filter(
      (s) =>
        s.method !== 'GET' ||
        !['/v1/webhook/url', '/v1/rfis?page_size=1'].includes(s.url) ||
        s.body !== '' ||
        s.url.includes(rfi.id),
    );
    expect(leaked).toEqual([]);
    expect(JSON.stringify(attackerSeen)).not.toContain(marker);
    expect(JSON.stringify(attackerSeen)).not.toContain(rfi.id);
    // It stays A's answer, tried at A only (A's own profile, whatever is active).
    expect(retried.bank).toMatchObject({ profileId: bankA });
    const listed = await call<{ answers: AnswerView[] }>('answers.list', { rfiId: rfi.id });
    expect(listed.answers[0]).toMatchObject({ id: queued.id, bank: { profileId: bankA } });
    expect(listed.answers[0]!.state).not.toBe('sent');

    // A reachable again, the other profile still active: delivered once, to A, with A's token.
    proxy.rules.length = 0;
    await until(
      'the answer sent to A',
      () => t.services.rfiAnswers.outbox.get(queued.id)?.state === 'sent',
      30_000,
    );
    expect(t.services.session.profile.id).toBe(evil);
    const atBank = (await (
      await fetch(`${sandbox.url}/v1/rfis/${rfi.id}`, {
        headers: { authorization: `Bearer ${sandbox.fixtures.legal_entities[0]!.tokens.admin!}` },
      })
    ).json()) as {
      questions: Array<{
        responses: Array<{ responder_type: string; response: Record<string, { response_text: string }> }>;
      }>;
    };
    const customer = atBank.questions[0]!.responses.filter((r) => r.responder_type === 'customer');
    expect(customer).toHaveLength(1);
    expect(customer[0]!.response['transaction.purpose']?.response_text).toBe(marker);
    expect(JSON.stringify(attackerSeen)).not.toContain(marker);
  });
});
