import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Change } from '../../src/shared/team/schemas';
import { startPostgresCluster, type PostgresCluster } from '../../src/team-server/dev/postgres-cluster';
import { ALDER, openChangeStream, startTeamStack, type TeamStack } from './support';

/**
 * PostgreSQL restarting under a running team server: its pool and its LISTEN connection come
 * back by themselves and an open event stream catches up. This file has a cluster of its own, so
 * the restart disturbs no other file.
 */
let cluster: PostgresCluster;
let stack: TeamStack;
beforeAll(async () => {
  cluster = await startPostgresCluster({ database: 'restart_admin' });
  stack = await startTeamStack({ postgresUrl: cluster.url });
}, 60_000);
afterAll(async () => {
  await stack?.close();
  await cluster?.stop();
});

async function until<T>(what: string, attempt: () => Promise<T | undefined>): Promise<T> {
  const deadline = Date.now() + 20_000;
  for (;;) {
    const got = await attempt().catch(() => undefined);
    if (got !== undefined) return got;
    if (Date.now() > deadline) throw new Error(`gave up waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

describe('PostgreSQL restarts under the team server', () => {
  it('claims work again afterwards, nothing is doubled, and the open stream receives what came after', async () => {
    const maria = stack.as('maria.keller');
    const jonas = stack.as('jonas.weber');
    expect((await maria.post(`/v1/entities/${ALDER}/rfis/rfi_before/claim`)).status).toBe(200);
    const { last } = (await jonas.get<{ last: number }>('/v1/changes?since=0')).body;
    const stream = await openChangeStream(stack.server.url, jonas.token, last);
    try {
      await cluster.restart();
      // The first requests after the restart may meet a dropped connection; the server recovers.
      const claimed = await until('a claim after the restart', async () => {
        const res = await maria.post(`/v1/entities/${ALDER}/rfis/rfi_after/claim`);
        return res.status === 200 ? res : undefined;
      });
      expect(claimed.body).toMatchObject({ holder: 'maria.keller', version: 1 });
      // The claim and its team activity entry: nothing more, nothing doubled.
      await stream.waitFor(2);
      expect(
        stream.received.map((c: Change) => [c.topic, c.topic === 'activity' ? 'entry' : c.objectId]),
      ).toEqual([
        ['assignment', 'rfi_after'],
        ['activity', 'entry'],
      ]);
      const rows = await stack.sql.query('SELECT rfi_id, holder FROM rfi_assignments ORDER BY rfi_id');
      expect(rows.rows).toEqual([
        { rfi_id: 'rfi_after', holder: 'maria.keller' },
        { rfi_id: 'rfi_before', holder: 'maria.keller' },
      ]);
    } finally {
      await stream.close();
    }
  });
});
