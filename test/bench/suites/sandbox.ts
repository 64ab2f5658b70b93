/**
 * Sandbox throughput: GET /v1/transactions/:id and GET /v1/rfis (page of 100, 10,000 RFIs stored)
 * with autocannon on loopback, each beside the same load against a bare fastify route that answers
 * the very same bytes, serialised once beforehand (what serving that answer costs the framework on
 * this machine; the difference is the bank's own work: auth, lookup, paging, serialisation).
 */
import { createRequire } from 'node:module';
import Fastify from 'fastify';
import { startSandbox } from '../../../src/sandbox/index';
import type { BenchResult, BenchSuite } from '../types';
import { benchCount } from '../support/scale';

interface AutocannonResult {
  requests: { average: number };
  non2xx: number;
  errors: number;
}
type Autocannon = (opts: {
  url: string;
  connections: number;
  duration: number;
  headers?: Record<string, string>;
}) => Promise<AutocannonResult>;

const autocannon = createRequire(import.meta.url)('autocannon') as Autocannon;
const duration = benchCount('BENCH_DURATION_SECONDS', 5, 1);
const STORED = benchCount('BENCH_RFIS', 10_000, 200);
const connections = 10;

async function load(url: string, headers?: Record<string, string>): Promise<number> {
  const r = await autocannon({ url, connections, duration, headers });
  if (r.non2xx > 0 || r.errors > 0) throw new Error(`${url}: ${r.non2xx} non-2xx, ${r.errors} errors`);
  return r.requests.average;
}

const suite: BenchSuite = {
  name: 'sandbox',
  async run(): Promise<BenchResult[]> {
    const bare = Fastify({ logger: false });
    const bodies = new Map<string, string>();
    bare.get('/same/:name', (req, reply) => {
      const body = bodies.get((req.params as { name: string }).name);
      if (body === undefined) return reply.code(404).send();
      return reply.type('application/json; charset=utf-8').send(body);
    });
    await bare.listen({ host: '127.0.0.1', port: 0 });
    const addr = bare.server.address();
    const bareUrl = `http://127.0.0.1:${typeof addr === 'object' && addr ? addr.port : 0}/same`;
    const sb = await startSandbox({ port: 0, visibilityDelayMs: { min: 0, max: 0 } });
    try {
      const le = sb.fixtures.legal_entities[0];
      if (!le) throw new Error('no seed');
      const auth = { authorization: `Bearer ${le.tokens.admin}` };
      const bulk = await fetch(`${sb.url}/v1/sandbox/rfis/bulk`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...sb.controlHeaders() },
        body: JSON.stringify({ count: STORED, legal_entity_id: le.id }),
      });
      if (!bulk.ok) throw new Error(`bulk RFIs: ${bulk.status}`);
      const txId = le.incoming_transfers[0]?.transaction_id ?? '';
      const txUrl = `${sb.url}/v1/transactions/${txId}`;
      const rfisUrl = `${sb.url}/v1/rfis?page_size=100`;
      // The bank's answers, kept as text for the bare route to send as they are.
      for (const [name, url] of [
        ['tx', txUrl],
        ['rfis', rfisUrl],
      ] as const) {
        const res = await fetch(url, { headers: auth });
        if (!res.ok) throw new Error(`${url}: ${res.status}`);
        bodies.set(name, await res.text());
      }
      const txSame = await load(`${bareUrl}/tx`);
      const tx = await load(txUrl, auth);
      const rfisSame = await load(`${bareUrl}/rfis`);
      const rfis = await load(rfisUrl, auth);
      const note = `autocannon ${connections} connections × ${duration} s on loopback`;
      return [
        {
          metric: 'GET /v1/transactions/:id (req/s)',
          value: tx,
          unit: 'req/s',
          baseline: txSame,
          baselineLabel: `bare fastify sending the same answer pre-serialised (${bodies.get('tx')?.length ?? 0} B)`,
          note,
        },
        {
          metric: `GET /v1/rfis page of 100, ${STORED} stored (req/s)`,
          value: rfis,
          unit: 'req/s',
          baseline: rfisSame,
          baselineLabel: `bare fastify sending the same page pre-serialised (${bodies.get('rfis')?.length ?? 0} B)`,
          note,
        },
      ];
    } finally {
      await sb.close();
      await bare.close();
    }
  },
};

export default suite;
