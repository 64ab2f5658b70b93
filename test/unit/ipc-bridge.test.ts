import { describe, expect, it, vi } from 'vitest';
import { createDeskBridge } from '../../src/shared/ipc/bridge';
import type { PushMessage } from '../../src/shared/ipc/bridge';

function transport() {
  let listener: ((m: PushMessage) => void) | null = null;
  const detach = vi.fn(() => {
    listener = null;
  });
  return {
    invoke: vi.fn(async (_c: string, _a: unknown): Promise<unknown> => ({ ok: true, value: 1 })),
    listen: vi.fn((l: (m: PushMessage) => void) => {
      listener = l;
      return detach;
    }),
    push: (m: PushMessage) => listener?.(m),
    detach,
  };
}

describe('createDeskBridge', () => {
  it('refuses unknown channels without reaching the transport', async () => {
    const t = transport();
    const desk = createDeskBridge(t);
    const answer = await desk.invoke('nope' as 'session.status', undefined);
    expect(answer).toMatchObject({ ok: false, error: { kind: 'unknown_channel' } });
    expect(t.invoke).not.toHaveBeenCalled();
  });

  it('turns a malformed or failed transport answer into an error envelope', async () => {
    const t = transport();
    const desk = createDeskBridge(t);
    t.invoke.mockResolvedValueOnce('garbage');
    await expect(desk.invoke('session.status', undefined)).resolves.toMatchObject({
      ok: false,
      error: { kind: 'internal' },
    });
    t.invoke.mockRejectedValueOnce(new Error('boom'));
    await expect(desk.invoke('session.status', undefined)).resolves.toMatchObject({
      ok: false,
      error: { kind: 'internal' },
    });
  });

  it('delivers only the subscribed event and unsubscribes', () => {
    const t = transport();
    const desk = createDeskBridge(t);
    const seen: unknown[] = [];
    const off = desk.subscribe('session.changed', (p) => seen.push(p));
    t.push({ event: 'session.changed', payload: { a: 1 } });
    t.push({ event: 'other', payload: { b: 2 } });
    expect(seen).toEqual([{ a: 1 }]);
    off();
    expect(t.detach).toHaveBeenCalledOnce();
    t.push({ event: 'session.changed', payload: { a: 3 } });
    expect(seen).toHaveLength(1);
  });

  it('refuses subscriptions to unknown events', () => {
    const desk = createDeskBridge(transport());
    expect(() => desk.subscribe('nope' as 'session.changed', () => undefined)).toThrow(/No such event/);
  });

  it('is frozen: a page cannot replace its methods', () => {
    const desk = createDeskBridge(transport());
    expect(Object.isFrozen(desk)).toBe(true);
  });
});
