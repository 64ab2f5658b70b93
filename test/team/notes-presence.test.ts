import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Note, ObjectPresence } from '../../src/shared/team/notes';
import type { ActivityEntry, Change } from '../../src/shared/team/schemas';
import { ALDER, BIRCH, openChangeStream, startTeamStack, type TeamStack } from './support';

/** Internal notes (append-only, the server's author and time) and presence (beats that expire). */
const PRESENCE_SECONDS = 2;
let stack: TeamStack;
beforeAll(async () => {
  stack = await startTeamStack({ presenceSeconds: PRESENCE_SECONDS });
});
afterAll(async () => stack?.close());

const rfi = (id: string) => ({ kind: 'rfi' as const, id });

describe('internal notes', () => {
  it('are appended per object with the server’s author and time, land once when retried, and enter the change feed', async () => {
    const { last } = (await stack.as('lea.fischer').get<{ last: number }>('/v1/changes?since=0')).body;
    const first = {
      id: randomUUID(),
      object: rfi('rfi_notes'),
      text: 'Customer called: passport renewal is under way.',
    };
    const t0 = Date.now();
    const a = await stack.as('maria.keller').post<Note>(`/v1/entities/${ALDER}/notes`, first);
    expect(a.status).toBe(201);
    expect(a.body).toMatchObject({ author: 'maria.keller', authorName: 'Maria Keller', text: first.text });
    expect(Math.abs(Date.parse(a.body.at) - t0)).toBeLessThan(5_000);
    // The outbox sends it again after a lost answer: the same note, once.
    const again = await stack.as('maria.keller').post<Note>(`/v1/entities/${ALDER}/notes`, first);
    expect(again.status).toBe(200);
    expect(again.body).toEqual(a.body);
    // The same id for other words, or in another analyst's name, is refused.
    expect(
      (await stack.as('maria.keller').post(`/v1/entities/${ALDER}/notes`, { ...first, text: 'changed' }))
        .body,
    ).toMatchObject({ error: { code: 'conflict' } });
    expect((await stack.as('jonas.weber').post(`/v1/entities/${ALDER}/notes`, first)).body).toMatchObject({
      error: { code: 'conflict' },
    });
    // A checker notes too; the author is whoever the token names, whatever the body says.
    const b = await stack.as('lea.fischer').post<Note>(`/v1/entities/${ALDER}/notes`, {
      id: randomUUID(),
      object: rfi('rfi_notes'),
      text: 'Checked against the registry extract.',
    });
    expect(b.body.author).toBe('lea.fischer');
    expect(
      (
        await stack.as('lea.fischer').post(`/v1/entities/${ALDER}/notes`, {
          id: randomUUID(),
          object: rfi('rfi_notes'),
          text: 'x',
          author: 'maria.keller',
        })
      ).status,
    ).toBe(400);
    await stack.as('jonas.weber').post(`/v1/entities/${ALDER}/notes`, {
      id: randomUUID(),
      object: { kind: 'return', id: 'tx_note' },
      text: 'Return waits for the customer’s reason.',
    });

    const list = await stack
      .as('jonas.weber')
      .get<{ notes: Note[] }>(`/v1/entities/${ALDER}/notes?kind=rfi&objectId=rfi_notes`);
    expect(list.body.notes.map((n) => [n.author, n.text])).toEqual([
      ['maria.keller', first.text],
      ['lea.fischer', 'Checked against the registry extract.'],
    ]);
    const feed = await stack.as('lea.fischer').get<{ changes: Change[] }>(`/v1/changes?since=${last}`);
    // Each note lands with an entry in the team activity log naming it (not its words).
    expect(
      feed.body.changes.map((c) => [
        c.topic,
        c.topic === 'activity'
          ? (c.data as { action: string; object: { id: string } }).object.id
          : c.objectId,
      ]),
    ).toEqual([
      ['note', 'rfi_notes'],
      ['activity', 'rfi_notes'],
      ['note', 'rfi_notes'],
      ['activity', 'rfi_notes'],
      ['note', 'tx_note'],
      ['activity', 'tx_note'],
    ]);
    const logged = feed.body.changes.find((c) => c.topic === 'activity')!.data as ActivityEntry;
    expect(logged).toMatchObject({ action: 'note.added', actor: 'maria.keller', detail: { note: first.id } });
    // Nobody at Birch's side sees Alder's notes; nobody edits a note, not even with psql.
    expect(
      (await stack.as('jonas.weber').get(`/v1/entities/${BIRCH}/notes?kind=rfi&objectId=rfi_notes`)).status,
    ).toBe(404);
    await expect(
      stack.sql.query("UPDATE internal_notes SET text = 'edited' WHERE id = $1", [first.id]),
    ).rejects.toMatchObject({
      code: '23000',
    });
    await expect(stack.sql.query('DELETE FROM internal_notes')).rejects.toMatchObject({ code: '23000' });
  });
});

describe('presence', () => {
  it('a beat makes an analyst present at an object, pushed to the entity’s streams, until it expires or they leave', async () => {
    const jonas = stack.as('jonas.weber');
    const stream = await openChangeStream(stack.server.url, jonas.token, 0);
    try {
      const here = await stack
        .as('maria.keller')
        .put<ObjectPresence>(`/v1/entities/${ALDER}/presence`, { object: rfi('rfi_seen') });
      expect(here.body.present).toMatchObject([
        { subject: 'maria.keller', name: 'Maria Keller', activity: 'viewing' },
      ]);
      const pushed = await stream.waitForPresence(
        (p) => p.object.id === 'rfi_seen' && p.present.some((a) => a.subject === 'maria.keller'),
      );
      expect(pushed.legalEntityId).toBe(ALDER);

      // Jonas opens the answer: both are there, readable per object.
      await jonas.put(`/v1/entities/${ALDER}/presence`, { object: rfi('rfi_seen'), activity: 'editing' });
      const read = await stack
        .as('lea.fischer')
        .get<{ objects: ObjectPresence[] }>(`/v1/entities/${ALDER}/presence?kind=rfi&objectId=rfi_seen`);
      expect(read.body.objects[0]!.present.map((p) => [p.subject, p.activity])).toEqual([
        ['maria.keller', 'viewing'],
        ['jonas.weber', 'editing'],
      ]);
      const whole = await stack
        .as('lea.fischer')
        .get<{ objects: ObjectPresence[] }>(`/v1/entities/${ALDER}/presence`);
      expect(whole.body.objects.map((o) => o.object.id)).toEqual(['rfi_seen']);

      // Maria leaves: the stream says so at once.
      await stack
        .as('maria.keller')
        .post(`/v1/entities/${ALDER}/presence/leave`, { object: rfi('rfi_seen') });
      await stream.waitForPresence(
        (p) => p.object.id === 'rfi_seen' && p.present.map((a) => a.subject).join() === 'jonas.weber',
      );

      // Jonas's workstation vanishes without a word: after the presence time he is gone.
      await new Promise((r) => setTimeout(r, PRESENCE_SECONDS * 1000 + 300));
      const after = await stack
        .as('lea.fischer')
        .get<{ objects: ObjectPresence[] }>(`/v1/entities/${ALDER}/presence?kind=rfi&objectId=rfi_seen`);
      expect(after.body.objects[0]!.present).toEqual([]);
      // The next beat there (Lea's) sweeps the expired row and is pushed without him.
      await stack.as('lea.fischer').put(`/v1/entities/${ALDER}/presence`, { object: rfi('rfi_seen') });
      await stream.waitForPresence(
        (p) => p.object.id === 'rfi_seen' && p.present.map((a) => a.subject).join() === 'lea.fischer',
      );
      const rows = await stack.sql.query(
        "SELECT subject FROM presence WHERE object_id = 'rfi_seen' ORDER BY subject",
      );
      expect(rows.rows).toEqual([{ subject: 'lea.fischer' }]);
      // Presence is never a numbered change: a workstation catching up is not told who was there.
      expect(stream.received.filter((c) => c.objectId === 'rfi_seen')).toEqual([]);
    } finally {
      await stream.close();
    }
  });
});
