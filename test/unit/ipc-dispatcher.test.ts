import { describe, expect, it } from 'vitest';
import { createDispatcher, createSenderPolicy } from '../../src/main/ipc/dispatcher';
import { originOf } from '../../src/main/infra/origins';
import type { Handlers } from '../../src/main/ipc/dispatcher';
import { createLogger, memorySink } from '../../src/main/infra/log';
import { AppFailure } from '../../src/shared/ipc/errors';
import type { SessionStatus } from '../../src/shared/ipc/channels/session';

const status: SessionStatus = {
  environment: {
    id: 'sandbox',
    name: 'Embedded sandbox',
    kind: 'embedded-sandbox',
    baseUrl: 'http://127.0.0.1:1',
  },
  connection: 'connected',
  credential: { webhookName: 'w', legalEntityId: 'le_a', legalEntityName: 'Alder Trade GmbH', role: 'admin' },
  problem: null,
  checkedAt: new Date(0).toISOString(),
  since: null,
  retryAt: null,
  keychainProblem: null,
};

function setup(handler: Handlers['session.status'] = async () => status) {
  const sink = memorySink();
  const calls: unknown[] = [];
  const handlers = {
    'session.status': async (args: undefined) => {
      calls.push(args);
      return handler(args);
    },
  } as Handlers;
  const dispatch = createDispatcher({
    handlers,
    isTrustedSender: createSenderPolicy(['app://treasury-desk']),
    log: createLogger(sink),
  });
  return { dispatch, calls, logs: sink.records };
}

const appFrame = { url: 'app://treasury-desk/index.html', isMainFrame: true };

describe('IPC dispatcher', () => {
  it('answers a valid call from the app main frame', async () => {
    const { dispatch } = setup();
    await expect(dispatch('session.status', undefined, appFrame)).resolves.toEqual({
      ok: true,
      value: status,
    });
  });

  it('refuses a wrong-shaped argument with a clear error and does not run the handler', async () => {
    const { dispatch, calls } = setup();
    const answer = await dispatch('session.status', { surprise: true }, appFrame);
    expect(answer.ok).toBe(false);
    if (answer.ok) return;
    expect(answer.error.kind).toBe('invalid_argument');
    expect(answer.error.message).toMatch(/^session\.status: /);
    expect(calls).toHaveLength(0);
  });

  it.each([
    ['another origin', { url: 'https://evil.example/index.html', isMainFrame: true }],
    ['a subframe of the app', { url: 'app://treasury-desk/index.html', isMainFrame: false }],
    ['a file:// page', { url: 'file:///etc/passwd', isMainFrame: true }],
    ['no URL', { url: undefined, isMainFrame: true }],
    ['a look-alike host', { url: 'app://treasury-desk.evil/index.html', isMainFrame: true }],
  ])('refuses %s', async (_label, sender) => {
    const { dispatch, calls, logs } = setup();
    const answer = await dispatch('session.status', undefined, sender);
    expect(answer).toMatchObject({ ok: false, error: { kind: 'forbidden_sender' } });
    expect(calls).toHaveLength(0);
    expect(logs.some((l) => l.level === 'warn' && l.message.includes('untrusted sender'))).toBe(true);
  });

  it('refuses unknown and inherited channel names', async () => {
    const { dispatch } = setup();
    for (const name of ['nope', '__proto__', 'toString', 42, null]) {
      await expect(dispatch(name, undefined, appFrame)).resolves.toMatchObject({
        ok: false,
        error: { kind: 'unknown_channel' },
      });
    }
  });

  it('refuses a contract channel that has no handler, whatever the arguments', async () => {
    const { dispatch, logs } = setup();
    for (const args of [undefined, { junk: true }]) {
      await expect(dispatch('settings.get', args, appFrame)).resolves.toMatchObject({
        ok: false,
        error: { kind: 'unknown_channel', message: 'No handler for settings.get' },
      });
    }
    expect(logs.some((r) => r.message === 'ipc: contract channel without a handler')).toBe(true);
  });

  it('passes a AppFailure through as its AppError', async () => {
    const { dispatch } = setup(async () => {
      throw new AppFailure({
        kind: 'precondition',
        message: 'No.',
        reason: 'INSUFFICIENT_BALANCE',
        status: 422,
      });
    });
    await expect(dispatch('session.status', undefined, appFrame)).resolves.toEqual({
      ok: false,
      error: { kind: 'precondition', message: 'No.', reason: 'INSUFFICIENT_BALANCE', status: 422 },
    });
  });

  it('hides unexpected errors behind a generic message and logs them', async () => {
    const { dispatch, logs } = setup(async () => {
      throw new Error('internal detail /home/user/secret');
    });
    const answer = await dispatch('session.status', undefined, appFrame);
    expect(answer).toMatchObject({ ok: false, error: { kind: 'internal' } });
    expect(JSON.stringify(answer)).not.toContain('secret');
    expect(logs.some((l) => l.level === 'error')).toBe(true);
  });
});

describe('originOf', () => {
  it('keeps scheme and host of custom schemes', () => {
    expect(originOf('app://treasury-desk/x/y?z')).toBe('app://treasury-desk');
    expect(originOf('http://127.0.0.1:5173/')).toBe('http://127.0.0.1:5173');
    expect(originOf('not a url')).toBeNull();
  });
});
