/**
 * The receiver's routes, one per profile, over real sockets and real signatures: each route has
 * its own unguessable path and its own key, duplicate ids are dropped per route, a removed route
 * answers 404, a held route answers 503 (the bank retries) and keeps its path when bound again.
 */
import { generateKeyPairSync } from 'node:crypto';
import type { KeyObject } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import { createLogger, memorySink } from '../../src/main/infra/log';
import { createWebhookReceiver } from '../../src/main/rfis/webhook-receiver';
import type { WebhookReceiver } from '../../src/main/rfis/webhook-receiver';
import { signWebhook } from '../../src/sandbox';
import type { WebhookEvent } from '../../src/shared/api/webhooks';

const bankA = generateKeyPairSync('ec', { namedCurve: 'P-256' });
const bankB = generateKeyPairSync('ec', { namedCurve: 'P-256' });
const NOW = Date.parse('2026-03-01T12:00:00Z');

function signed(id: string, key: KeyObject): { body: string; headers: Record<string, string> } {
  const body = JSON.stringify({
    id,
    type: 'rfi.action_required',
    created_at: new Date(NOW).toISOString(),
    data: { rfi_id: 'rfi_1', status: 'action_required' },
  });
  const t = Math.floor(NOW / 1000);
  return {
    body,
    headers: {
      'content-type': 'application/json',
      'service-signature': `t=${t},v1=${signWebhook(body, t, key)}`,
    },
  };
}

async function post(url: string, ev: { body: string; headers: Record<string, string> }): Promise<number> {
  const res = await fetch(url, { method: 'POST', headers: ev.headers, body: ev.body });
  await res.body?.cancel();
  return res.status;
}

let receiver: WebhookReceiver | null = null;
afterEach(async () => {
  await receiver?.close();
  receiver = null;
});

describe('webhook routes per profile', () => {
  it('separate paths and keys, duplicates per route, removal and holding', async () => {
    const got: Record<string, WebhookEvent[]> = { a: [], b: [] };
    receiver = createWebhookReceiver({ nowMs: () => NOW, log: createLogger(memorySink(), 'debug') });
    const origin = await receiver.start();
    // No fixed route without a key and handler.
    expect(receiver.url).toBeNull();
    expect(await post(`${origin}/webhooks/rfi`, signed('evt_0', bankA.privateKey))).toBe(404);

    const pathA = receiver.addRoute({
      scope: 'a',
      publicKey: () => bankA.publicKey,
      onEvent: (e) => got.a!.push(e),
    });
    const pathB = receiver.addRoute({
      scope: 'b',
      publicKey: () => bankB.publicKey,
      onEvent: (e) => got.b!.push(e),
    });
    expect(pathA).not.toBe(pathB);
    expect(pathA).toMatch(/^\/webhooks\/rfi\/[A-Za-z0-9_-]{22}$/);
    const urlA = receiver.routeUrl('a')!;
    const urlB = receiver.routeUrl('b')!;

    // Each route checks its own profile's key.
    expect(await post(urlA, signed('evt_1', bankB.privateKey))).toBe(401);
    expect(await post(urlA, signed('evt_1', bankA.privateKey))).toBe(202);
    expect(await post(urlB, signed('evt_2', bankB.privateKey))).toBe(202);
    expect(got.a!.map((e) => e.id)).toEqual(['evt_1']);
    expect(got.b!.map((e) => e.id)).toEqual(['evt_2']);
    // Duplicates are per route: the same id is news to B once, then a duplicate there.
    expect(await post(urlA, signed('evt_1', bankA.privateKey))).toBe(200);
    const sameIdForB = signed('evt_1', bankB.privateKey);
    expect(await post(urlB, sameIdForB)).toBe(202);
    expect(await post(urlB, sameIdForB)).toBe(200);
    expect(receiver.routeCounters('a')).toMatchObject({ accepted: 1, duplicates: 1, refused: 1 });
    expect(receiver.routeCounters('b')).toMatchObject({ accepted: 2, duplicates: 1, refused: 0 });

    // Held: 503 (the bank retries), nothing handled; bound again: same path, handled.
    receiver.pauseRoute('a');
    expect(await post(urlA, signed('evt_3', bankA.privateKey))).toBe(503);
    expect(
      receiver.addRoute({ scope: 'a', publicKey: () => bankA.publicKey, onEvent: (e) => got.a!.push(e) }),
    ).toBe(pathA);
    expect(await post(urlA, signed('evt_3', bankA.privateKey))).toBe(202);
    expect(got.a!.map((e) => e.id)).toEqual(['evt_1', 'evt_3']);

    // Removed: 404 before the body is read; added again, a fresh path.
    receiver.removeRoute('b');
    expect(receiver.routeUrl('b')).toBeNull();
    expect(await post(urlB, signed('evt_4', bankB.privateKey))).toBe(404);
    const again = receiver.addRoute({
      scope: 'b',
      publicKey: () => bankB.publicKey,
      onEvent: (e) => got.b!.push(e),
    });
    expect(again).not.toBe(pathB);
    expect(got.b!.map((e) => e.id)).toEqual(['evt_2', 'evt_1']);
  });
});
