/**
 * The team server under a team: 50 simulated workstations (each its own analyst, signed in at the
 * development OpenID provider through the real code flow, each with its own token and its own
 * event stream) against one team server on a throwaway PostgreSQL cluster.
 *
 * - Claim round trip: every workstation claims RFIs one after another, all at once; each claim
 *   is a token check, a role read, one conditional upsert and its change, committed. Beside it, the
 *   same number of bare `SELECT 1` round trips through pg from 50 callers at once over a pool of the
 *   server's size: what PostgreSQL alone costs on this machine.
 * - Change propagation: one claim at a time, timed from the moment it is sent to the moment its
 *   change arrives on each of the 50 streams (LISTEN/NOTIFY, the read of the feed, the write to
 *   every stream). Beside it, a bare fastify server-sent-event echo: a POST whose body the server
 *   writes to 50 open streams, the same bytes the change carries. Server-sent events because that
 *   is what the team server pushes with (no websocket library is installed, and an echo over
 *   another kind of channel would measure something else).
 */
import { randomBytes } from 'node:crypto';
import type { ServerResponse } from 'node:http';
import Fastify from 'fastify';
import type { Change } from '../../../src/shared/team/schemas';
import { seedTeam } from '../../../src/team-server/bootstrap';
import { createPool } from '../../../src/team-server/db';
import type { DemoAnalyst } from '../../../src/team-server/dev/demo-team';
import { startDevOidcProvider } from '../../../src/team-server/dev/oidc';
import { startPostgresCluster } from '../../../src/team-server/dev/postgres-cluster';
import { signIn } from '../../../src/team-server/dev/sign-in';
import { startTeamServer } from '../../../src/team-server/index';
import type { BenchResult, BenchSuite } from '../types';
import { benchCount } from '../support/scale';
import { median, p95 } from '../support/queue-page';

const WORKSTATIONS = benchCount('BENCH_TEAM_WORKSTATIONS', 50, 3);
const CLAIMS = benchCount('BENCH_TEAM_CLAIMS', 20, 2);
const PROPAGATIONS = benchCount('BENCH_TEAM_PROPAGATIONS', 60, 3);
const ENTITY = 'le_bench';
const POOL_SIZE = 10;

/** One open server-sent-event stream: calls `onEvent` with each event's data as it arrives. */
async function openStream(
  url: string,
  headers: Record<string, string>,
  onEvent: (data: string) => void,
): Promise<() => void> {
  const ac = new AbortController();
  const res = await fetch(url, { headers, signal: ac.signal });
  if (!res.ok || !res.body) throw new Error(`${url}: ${res.status}`);
  const reader = res.body.pipeThrough(new TextDecoderStream()).getReader();
  let buffer = '';
  void (async () => {
    for (;;) {
      const { value, done } = await reader.read().catch(() => ({ value: undefined, done: true }));
      if (done) return;
      buffer += value;
      let cut: number;
      while ((cut = buffer.indexOf('\n\n')) >= 0) {
        const data = buffer
          .slice(0, cut)
          .split('\n')
          .find((l) => l.startsWith('data: '));
        buffer = buffer.slice(cut + 2);
        if (data) onEvent(data.slice(6));
      }
    }
  })();
  return () => ac.abort();
}

/** When each stream saw each message (by key), and a wait for all of them without polling. */
class Arrivals {
  private readonly times = new Map<string, number[]>();
  private readonly waiting = new Map<string, { n: number; resolve: () => void }>();
  record(key: string): void {
    const at = performance.now();
    const list = this.times.get(key) ?? [];
    list.push(at);
    this.times.set(key, list);
    const w = this.waiting.get(key);
    if (w && list.length >= w.n) {
      this.waiting.delete(key);
      w.resolve();
    }
  }
  of(key: string): number[] {
    return this.times.get(key) ?? [];
  }
  async all(key: string, n: number): Promise<void> {
    if (this.of(key).length >= n) return;
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([
      new Promise<void>((resolve) => this.waiting.set(key, { n, resolve })),
      new Promise<never>((_, reject) => {
        timer = setTimeout(
          () => reject(new Error(`${key}: ${this.of(key).length} of ${n} streams after 60 s`)),
          60_000,
        );
      }),
    ]).finally(() => clearTimeout(timer));
  }
}

/**
 * Sends `rounds` messages one at a time; each round ends once all `streams` streams saw it.
 * Answers each delivery's delay (ms) from the moment its message was sent.
 */
async function propagate(
  rounds: number,
  streams: number,
  send: (round: number) => Promise<void>,
  arrivals: Arrivals,
  key: (round: number) => string,
): Promise<number[]> {
  const delays: number[] = [];
  for (let r = 0; r < rounds; r += 1) {
    const t0 = performance.now();
    await send(r);
    await arrivals.all(key(r), streams);
    for (const t of arrivals.of(key(r))) delays.push(t - t0);
  }
  return delays;
}

/** The bare echo: POST /echo writes its body, as it is, to every open GET /stream. */
async function startEcho() {
  const app = Fastify({ logger: false });
  const open = new Set<ServerResponse>();
  app.get('/stream', (request, reply) => {
    reply.hijack();
    reply.raw.writeHead(200, {
      'content-type': 'text/event-stream; charset=utf-8',
      'cache-control': 'no-store',
    });
    reply.raw.write(': echo\n\n');
    open.add(reply.raw);
    request.raw.on('close', () => open.delete(reply.raw));
  });
  app.addContentTypeParser('text/plain', { parseAs: 'string' }, (_req, body, done) => done(null, body));
  app.post('/echo', async (request) => {
    for (const res of open) res.write(`event: change\ndata: ${String(request.body)}\n\n`);
    return { ok: true };
  });
  await app.listen({ host: '127.0.0.1', port: 0 });
  const addr = app.server.address();
  const url = `http://127.0.0.1:${typeof addr === 'object' && addr ? addr.port : 0}`;
  return {
    url,
    async close() {
      app.server.closeAllConnections();
      await app.close();
    },
  };
}

async function timedLoops(
  n: number,
  each: number,
  call: (ws: number, k: number) => Promise<void>,
): Promise<number[]> {
  const times: number[] = [];
  await Promise.all(
    Array.from({ length: n }, async (_, ws) => {
      for (let k = 0; k < each; k += 1) {
        const t0 = performance.now();
        await call(ws, k);
        times.push(performance.now() - t0);
      }
    }),
  );
  return times;
}

const suite: BenchSuite = {
  name: 'team',
  async run(): Promise<BenchResult[]> {
    const analysts: DemoAnalyst[] = Array.from({ length: WORKSTATIONS }, (_, i) => ({
      subject: `bench.analyst${i}`,
      name: `Bench Analyst ${i}`,
      email: `bench.analyst${i}@example.test`,
      password: `bench-${randomBytes(6).toString('hex')}`,
    }));
    const cluster = await startPostgresCluster({ database: 'team_bench' });
    const provider = await startDevOidcProvider({ analysts, accessTokenTtlSeconds: 3600 });
    const auth = { issuer: provider.issuer, audience: provider.audience };
    const server = await startTeamServer({ databaseUrl: cluster.url, auth });
    const bare = createPool(cluster.url, POOL_SIZE);
    const echo = await startEcho();
    const closers: (() => void)[] = [];
    try {
      await seedTeam(server.db, {
        entities: [{ id: ENTITY, name: 'Bench Holdings AG' }],
        members: analysts.map((a) => ({
          subject: a.subject,
          name: a.name,
          legalEntityId: ENTITY,
          roles: ['maker'],
        })),
      });
      const tokens: string[] = [];
      for (const a of analysts) tokens.push((await signIn(auth, a.subject, a.password)).accessToken);
      const headers = (ws: number) => ({ authorization: `Bearer ${tokens[ws] ?? ''}` });

      // Every workstation's own stream, open for the whole run (as the app keeps it).
      const teamArrivals = new Arrivals();
      for (let ws = 0; ws < WORKSTATIONS; ws += 1)
        closers.push(
          await openStream(`${server.url}/v1/changes/stream`, headers(ws), (data) =>
            teamArrivals.record((JSON.parse(data) as Change).objectId),
          ),
        );

      const claim = async (ws: number, rfi: string) => {
        const res = await fetch(`${server.url}/v1/entities/${ENTITY}/rfis/${rfi}/claim`, {
          method: 'POST',
          headers: { ...headers(ws), 'content-type': 'application/json' },
          body: '{}',
        });
        if (res.status !== 200) throw new Error(`claim ${rfi}: ${res.status} ${await res.text()}`);
        await res.arrayBuffer();
      };
      // Warm both sides first: connections opened (scram authentication), keys fetched, analysts known.
      await Promise.all(
        tokens.map(async (_, ws) => {
          const res = await fetch(`${server.url}/v1/me`, { headers: headers(ws) });
          if (!res.ok) throw new Error(`/v1/me: ${res.status}`);
          await res.arrayBuffer();
        }),
      );
      await Promise.all(Array.from({ length: POOL_SIZE }, () => bare.query('SELECT 1')));
      const claimTimes = await timedLoops(WORKSTATIONS, CLAIMS, (ws, k) => claim(ws, `rfi_ws${ws}_${k}`));
      const selectTimes = await timedLoops(WORKSTATIONS, CLAIMS, async () => {
        await bare.query('SELECT 1');
      });
      // Let the claims' changes drain from every stream before timing propagation.
      for (let ws = 0; ws < WORKSTATIONS; ws += 1)
        await teamArrivals.all(`rfi_ws${ws}_${CLAIMS - 1}`, WORKSTATIONS);

      const teamDelays = await propagate(
        PROPAGATIONS,
        WORKSTATIONS,
        (r) => claim(r % WORKSTATIONS, `rfi_prop_${r}`),
        teamArrivals,
        (r) => `rfi_prop_${r}`,
      );

      // The same bytes a claim's change carries, echoed to as many streams.
      const sample = await fetch(`${server.url}/v1/changes?since=0&limit=1`, { headers: headers(0) });
      const change = ((await sample.json()) as { changes: Change[] }).changes[0];
      const echoArrivals = new Arrivals();
      for (let ws = 0; ws < WORKSTATIONS; ws += 1)
        closers.push(
          await openStream(`${echo.url}/stream`, {}, (data) =>
            echoArrivals.record((JSON.parse(data) as Change).objectId),
          ),
        );
      const echoDelays = await propagate(
        PROPAGATIONS,
        WORKSTATIONS,
        async (r) => {
          const res = await fetch(`${echo.url}/echo`, {
            method: 'POST',
            headers: { 'content-type': 'text/plain' },
            body: JSON.stringify({ ...change, objectId: `echo_${r}` }),
          });
          await res.arrayBuffer();
        },
        echoArrivals,
        (r) => `echo_${r}`,
      );

      const load = `${WORKSTATIONS} workstations`;
      const claimNote = `${load} × ${CLAIMS} claims at once, each with its own token and open stream; pool of ${POOL_SIZE}`;
      const propNote = `${PROPAGATIONS} claims one at a time × ${WORKSTATIONS} streams; bare echo: fastify server-sent events (no websocket library installed)`;
      return [
        {
          metric: 'claim round trip p50 (ms)',
          value: median(claimTimes),
          unit: 'ms',
          baseline: median(selectTimes),
          baselineLabel: 'bare pg SELECT 1 p50',
          note: claimNote,
        },
        {
          metric: 'claim round trip p95 (ms)',
          value: p95(claimTimes),
          unit: 'ms',
          baseline: p95(selectTimes),
          baselineLabel: 'bare pg SELECT 1 p95',
          note: claimNote,
        },
        {
          metric: 'change propagation, claim sent → every stream, p50 (ms)',
          value: median(teamDelays),
          unit: 'ms',
          baseline: median(echoDelays),
          baselineLabel: 'bare SSE echo p50',
          note: propNote,
        },
        {
          metric: 'change propagation, claim sent → every stream, p95 (ms)',
          value: p95(teamDelays),
          unit: 'ms',
          baseline: p95(echoDelays),
          baselineLabel: 'bare SSE echo p95',
          note: propNote,
        },
      ];
    } finally {
      for (const close of closers) close();
      await echo.close();
      await bare.end();
      await server.close();
      await provider.close();
      await cluster.stop();
    }
  },
};

export default suite;
