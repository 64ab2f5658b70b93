/**
 * Sandbox throughput: GET /v1/transactions/:id and GET /v1/rfis (page of 100, 10,000 RFIs stored)
 * with autocannon on loopback, beside the same load against a bare fastify route returning a
 * constant (the framework's ceiling on this machine).
 */
import { createRequire } from 'node:module';
import Fastify from 'fastify';
import { startSandbox } from '../../../src/sandbox/index';
import type { BenchResult, BenchSuite } from '../types';

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
const duration = Number.parseInt(process.env.BENCH_DURATION_SECONDS ?? '5', 10);
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
    bare.get('/const', async () => ({ ok: true }));
    await bare.listen({ host: '127.0.0.1', port: 0 });
    const addr = bare.server.address();
    const bareUrl = `http://127.0.0.1:${typeof addr === 'object' && addr ? addr.port : 0}/const`;
    const sb = await startSandbox({ port: 0, visibilityDelayMs: { min: 0, max: 0 } });
    try {
      const le = sb.fixtures.legal_entities[0];
      if (!le) throw new Error('no seed');
      const auth = { authorization: `Bearer ${le.tokens.admin}` };
      const bulk = await fetch(`${sb.url}/v1/sandbox/rfis/bulk`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...sb.controlHeaders() },
        body: JSON.stringify({ count: 10_000, legal_entity_id: le.id }),
      });
      if (!bulk.ok) throw new Error(`bulk RFIs: ${bulk.status}`);
      const txId = le.incoming_transfers[0]?.transaction_id ?? '';
      const ceiling = await load(bareUrl);
      const tx = await load(`${sb.url}/v1/transactions/${txId}`, auth);
      const rfis = await load(`${sb.url}/v1/rfis?page_size=100`, auth);
      const note = `autocannon ${connections} connections × ${duration} s on loopback`;
      return [
        {
          metric: 'GET /v1/transactions/:id (req/s)',
          value: tx,
          unit: 'req/s',
          baseline: ceiling,
          baselineLabel: 'bare fastify constant route',
          note,
        },
        {
          metric: 'GET /v1/rfis page of 100, 10,000 stored (req/s)',
          value: rfis,
          unit: 'req/s',
          baseline: ceiling,
          baselineLabel: 'bare fastify constant route',
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
