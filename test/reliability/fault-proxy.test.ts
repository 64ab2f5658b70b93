import { createServer } from 'node:http';
import type { Server } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { randomPlan, startFaultProxy } from '../support/fault-proxy';
import type { FaultPlan, FaultProxy } from '../support/fault-proxy';
import { createRng } from '../support/rng';

/** The fault proxy itself: each fault does what the scenarios rely on, against a counting server. */
let server: Server;
let serverUrl = '';
let hits = 0;

beforeAll(async () => {
  server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      hits++;
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ hit: hits, padding: 'x'.repeat(64) }));
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const a = server.address();
  serverUrl = `http://127.0.0.1:${typeof a === 'object' && a ? a.port : 0}`;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise<void>((r) => server.close(() => r()));
});

type Outcome = { status: number; body: string } | { error: string };

async function send(proxy: FaultProxy, timeoutMs = 1500): Promise<Outcome> {
  try {
    const res = await fetch(`${proxy.url}/x`, {
      method: 'POST',
      body: '{}',
      headers: { 'idempotency-key': 'k-1', 'content-type': 'application/json' },
      signal: AbortSignal.timeout(timeoutMs),
    });
    return { status: res.status, body: await res.text() };
  } catch (err) {
    return { error: (err as Error).name };
  }
}

async function withPlan(plan: FaultPlan, timeoutMs?: number): Promise<{ out: Outcome; hits: number }> {
  const proxy = await startFaultProxy({ target: serverUrl, plan: () => plan });
  try {
    const before = hits;
    const out = await send(proxy, timeoutMs);
    await new Promise((r) => setTimeout(r, 20));
    expect(proxy.log).toHaveLength(1);
    expect(proxy.log[0]).toMatchObject({ method: 'POST', path: '/x', idempotencyKey: 'k-1', plan });
    return { out, hits: hits - before };
  } finally {
    await proxy.close();
  }
}

describe('fault proxy', () => {
  it('refuses a target that is not loopback', async () => {
    await expect(startFaultProxy({ target: 'http://example.com' })).rejects.toThrow(/loopback/);
    await expect(startFaultProxy({ target: 'https://127.0.0.1:1' })).rejects.toThrow(/loopback/);
  });

  it('pass and latency: the answer arrives, later', async () => {
    const t0 = Date.now();
    const r = await withPlan({ kind: 'pass', delayMs: 150, answerDelayMs: 100 });
    expect(Date.now() - t0).toBeGreaterThanOrEqual(240);
    expect(r.hits).toBe(1);
    expect(r.out).toMatchObject({ status: 200 });
  });

  it('reset before the request reaches the server: no hit, a network error', async () => {
    const r = await withPlan({ kind: 'reset-before' });
    expect(r.hits).toBe(0);
    expect(r.out).toHaveProperty('error');
  });

  it('reset after the server committed: one hit, a network error', async () => {
    const r = await withPlan({ kind: 'reset-after' });
    expect(r.hits).toBe(1);
    expect(r.out).toHaveProperty('error');
  });

  it('a truncated answer: one hit, the client cannot read the body', async () => {
    const r = await withPlan({ kind: 'truncate', keepBytes: 5 });
    expect(r.hits).toBe(1);
    expect(r.out).toHaveProperty('error');
  });

  it('a cut answer with a consistent length: one hit, a short complete body', async () => {
    const r = await withPlan({ kind: 'truncate', keepBytes: 5, consistentLength: true });
    expect(r.hits).toBe(1);
    expect(r.out).toMatchObject({ status: 200, body: '{"hit' });
  });

  it('5xx and 429 from the proxy: no hit; a gateway 502 after the server committed: one hit', async () => {
    const a = await withPlan({ kind: 'status', status: 503 });
    expect(a).toMatchObject({ hits: 0, out: { status: 503 } });
    const b = await withPlan({ kind: 'status', status: 429, retryAfterSeconds: 0 });
    expect(b).toMatchObject({ hits: 0, out: { status: 429 } });
    expect(JSON.parse((b.out as { body: string }).body)).toMatchObject({ error: { code: '429' } });
    const c = await withPlan({ kind: 'status-after', status: 502 });
    expect(c).toMatchObject({ hits: 1, out: { status: 502 } });
  });

  it('a server that stops answering: before (no hit) and after commit (one hit), the client times out', async () => {
    const a = await withPlan({ kind: 'hang' }, 300);
    expect(a).toMatchObject({ hits: 0, out: { error: 'TimeoutError' } });
    const b = await withPlan({ kind: 'hang-after' }, 300);
    expect(b).toMatchObject({ hits: 1, out: { error: 'TimeoutError' } });
  });

  it('down: every request hangs until the server is back', async () => {
    const proxy = await startFaultProxy({ target: serverUrl });
    try {
      proxy.setDown(true);
      expect(await send(proxy, 200)).toEqual({ error: 'TimeoutError' });
      proxy.setDown(false);
      expect(await send(proxy)).toMatchObject({ status: 200 });
    } finally {
      await proxy.close();
    }
  });

  it('TCP faults: a connection reset on accept and a black hole', async () => {
    const proxy = await startFaultProxy({
      target: serverUrl,
      connection: (n) => (n === 0 ? 'reset' : 'accept'),
    });
    try {
      const before = hits;
      expect(await send(proxy)).toHaveProperty('error');
      proxy.setConnectionFaults(() => 'blackhole');
      expect(await send(proxy, 200)).toEqual({ error: 'TimeoutError' });
      proxy.setConnectionFaults(null);
      expect(await send(proxy)).toMatchObject({ status: 200 });
      expect(hits - before).toBe(1);
    } finally {
      await proxy.close();
    }
  });

  it('seeded plans replay exactly and produce bursts', () => {
    const draw = (seed: number): string[] => {
      const plan = randomPlan({
        rng: createRng(seed),
        weights: { pass: 2, 'reset-after': 1, status: 2, truncate: 1 },
        latency: { p: 0.3, minMs: 1, maxMs: 50 },
        burst: { p: 0.5, min: 3, max: 5 },
      });
      return Array.from({ length: 200 }, (_, n) =>
        JSON.stringify(
          plan({ n, method: 'GET', path: '/', headers: {}, idempotencyKey: null, body: Buffer.alloc(0) }),
        ),
      );
    };
    const a = draw(42);
    expect(draw(42)).toEqual(a);
    expect(draw(43)).not.toEqual(a);
    const kinds = a.map((s) => (JSON.parse(s) as FaultPlan).kind);
    for (const k of ['pass', 'reset-after', 'status', 'truncate']) expect(kinds).toContain(k);
    // A burst: at least three identical status faults in a row.
    const statuses = a
      .map((s) => JSON.parse(s) as FaultPlan)
      .map((p) => (p.kind === 'status' ? p.status : 0));
    expect(statuses.some((s, i) => s !== 0 && statuses[i + 1] === s && statuses[i + 2] === s)).toBe(true);
  });
});
