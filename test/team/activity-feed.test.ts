import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ActivityEntry, Change } from '../../src/shared/team/schemas';
import { verifyChain } from '../../src/team-server/activity-chain';
import { activityToWire } from '../../src/team-server/routes/activity';
import { ALDER, BIRCH, openChangeStream, startTeamStack, type TeamStack } from './support';

/** The team activity log (append-only, chained) and the change feed (catch-up and push). */
let stack: TeamStack;
beforeAll(async () => {
  stack = await startTeamStack();
});
afterAll(async () => stack?.close());

async function alderLog(): Promise<ActivityEntry[]> {
  const res = await stack
    .as('lea.fischer')
    .get<{ entries: ActivityEntry[] }>(`/v1/entities/${ALDER}/activity?since=0`);
  return res.body.entries;
}

describe('team activity log', () => {
  it('is numbered by the server, chained per entity, verifies, and tampering is refused or detected', async () => {
    const maria = stack.as('maria.keller');
    const appended = await Promise.all(
      Array.from({ length: 6 }, (_, i) =>
        maria.post<ActivityEntry>('/v1/activity', {
          legalEntityId: ALDER,
          action: 'answer.drafted',
          object: { kind: 'rfi_answer', id: `rfi_${i}` },
          detail: { words: String(i) },
        }),
      ),
    );
    expect(appended.map((a) => a.status)).toEqual([201, 201, 201, 201, 201, 201]);
    await stack
      .as('lea.fischer')
      .post('/v1/activity', { legalEntityId: BIRCH, action: 'return.confirmed', detail: {} });
    const log = await alderLog();
    expect(log.map((e) => e.seq)).toEqual([...log.map((e) => e.seq)].sort((a, b) => a - b));
    expect(new Set(log.map((e) => e.seq)).size).toBe(6);
    expect(verifyChain(log)).toBeNull();

    // The database refuses changing or removing an entry, and an entry that does not follow the last.
    const third = log[2]!;
    await expect(
      stack.sql.query('UPDATE activity_log SET detail = \'{"words":"99"}\' WHERE seq = $1', [third.seq]),
    ).rejects.toMatchObject({ code: '23000' });
    await expect(
      stack.sql.query('DELETE FROM activity_log WHERE seq = $1', [third.seq]),
    ).rejects.toMatchObject({ code: '23000' });
    await expect(stack.sql.query('TRUNCATE activity_log CASCADE')).rejects.toMatchObject({ code: '23000' });
    await expect(
      stack.sql.query(
        "INSERT INTO activity_log (seq, at, actor, legal_entity_id, action, detail, prev_hash, hash) VALUES (1000, now(), 'maria.keller', $1, 'forged', '{}', $2, $3)",
        [ALDER, third.hash, 'f'.repeat(64)],
      ),
    ).rejects.toMatchObject({ code: '23000' });

    // Someone with the table owner's rights switches the guard off and edits an entry: the chain shows it.
    const c = await stack.sql.connect();
    try {
      await c.query('ALTER TABLE activity_log DISABLE TRIGGER activity_log_append_only');
      await c.query('UPDATE activity_log SET detail = \'{"words":"99"}\' WHERE seq = $1', [third.seq]);
      await c.query('ALTER TABLE activity_log ENABLE TRIGGER activity_log_append_only');
    } finally {
      c.release();
    }
    const rows = await stack.sql.query('SELECT * FROM activity_log WHERE legal_entity_id = $1 ORDER BY seq', [
      ALDER,
    ]);
    const tampered = rows.rows.map((r) => activityToWire(r as Parameters<typeof activityToWire>[0]));
    expect(verifyChain(tampered)).toEqual({ seq: third.seq, problem: 'hash' });
    // Recomputing the edited entry's hash breaks the link of the one after it instead.
    expect(verifyChain(tampered.filter((e) => e.seq !== third.seq))).toEqual({
      seq: log[3]!.seq,
      problem: 'link',
    });
  });
});

describe('change feed', () => {
  it('a workstation that was away catches up from its sequence number, only for its entities', async () => {
    const jonas = stack.as('jonas.weber');
    const start = await jonas.get<{ changes: Change[]; last: number }>('/v1/changes?since=0');
    const mark = start.body.last;
    const leaMark = (await stack.as('lea.fischer').get<{ last: number }>('/v1/changes?since=0')).body.last;
    await stack.as('maria.keller').post(`/v1/entities/${ALDER}/rfis/rfi_feed_1/claim`);
    await stack.as('lea.fischer').post('/v1/activity', { legalEntityId: BIRCH, action: 'note', detail: {} });
    await stack.as('maria.keller').post(`/v1/entities/${ALDER}/rfis/rfi_feed_2/claim`);
    const caught = await jonas.get<{ changes: Change[]; last: number }>(`/v1/changes?since=${mark}`);
    // Each claim lands with its entry in the team activity log (same transaction).
    expect(
      caught.body.changes.map((c) => [
        c.topic,
        c.topic === 'activity' ? (c.data as { action: string }).action : c.objectId,
      ]),
    ).toEqual([
      ['assignment', 'rfi_feed_1'],
      ['activity', 'rfi.claimed'],
      ['assignment', 'rfi_feed_2'],
      ['activity', 'rfi.claimed'],
    ]);
    expect(caught.body.last).toBe(caught.body.changes.at(-1)?.seq);
    // Lea holds roles at Birch too: she sees the Birch entry.
    const lea = await stack.as('lea.fischer').get<{ changes: Change[] }>(`/v1/changes?since=${leaMark}`);
    expect(lea.body.changes.map((c) => c.legalEntityId)).toEqual([ALDER, ALDER, BIRCH, ALDER, ALDER]);
    const again = await jonas.get<{ changes: Change[]; last: number }>(
      `/v1/changes?since=${caught.body.last}`,
    );
    expect(again.body).toEqual({ changes: [], last: caught.body.last });
  });

  it('pushes a change to a subscribed workstation through LISTEN/NOTIFY', async () => {
    const jonas = stack.as('jonas.weber');
    const { last } = (await jonas.get<{ last: number }>('/v1/changes?since=0')).body;
    const stream = await openChangeStream(stack.server.url, jonas.token, last);
    const { received, waitFor } = stream;
    try {
      // Another analyst's claim, committed after the stream opened, reaches it.
      await stack.as('maria.keller').post(`/v1/entities/${ALDER}/rfis/rfi_push/claim`);
      await waitFor(2);
      expect(received[0]).toMatchObject({ topic: 'assignment', objectId: 'rfi_push', legalEntityId: ALDER });
      expect(received[1]).toMatchObject({ topic: 'activity', data: { action: 'rfi.claimed' } });
      expect(received[0]!.seq).toBeGreaterThan(last);
      // A change made with plain SQL (another server process) reaches it too: the trigger's NOTIFY.
      await stack.sql.query(
        "INSERT INTO changes (legal_entity_id, topic, object_id, data) VALUES ($1, 'member', 'someone', '{}')",
        [ALDER],
      );
      await waitFor(3);
      expect(received[2]).toMatchObject({ topic: 'member', objectId: 'someone' });
    } finally {
      await stream.close();
    }
    // A dropped stream resumes where it left off: the browser's Last-Event-ID header.
    await stack.as('maria.keller').post(`/v1/entities/${ALDER}/rfis/rfi_resume/claim`);
    const ac = new AbortController();
    const resumed = await fetch(`${stack.server.url}/v1/changes/stream`, {
      headers: { authorization: `Bearer ${jonas.token}`, 'last-event-id': String(received[1]!.seq) },
      signal: ac.signal,
    });
    const reader = resumed.body!.pipeThrough(new TextDecoderStream()).getReader();
    let text = '';
    while (!text.includes('rfi_resume')) {
      const { value, done } = await reader.read();
      if (done) throw new Error('the resumed stream ended');
      text += value;
    }
    ac.abort();
    const ids = [...text.matchAll(/^id: (\d+)$/gm)].map((m) => Number(m[1]));
    expect(ids[0]).toBe(received[1]!.seq + 1);
  });
});
