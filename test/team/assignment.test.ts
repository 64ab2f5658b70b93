import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ALDER, startTeamStack, type TeamStack } from './support';

/** Assignment of RFIs: a claim is one conditional upsert, so concurrent claims have one winner. */
let stack: TeamStack;
beforeAll(async () => {
  stack = await startTeamStack();
});
afterAll(async () => stack?.close());

describe('RFI assignment', () => {
  it('of two analysts claiming the same RFI at once, exactly one holds it', async () => {
    const maria = stack.as('maria.keller');
    const jonas = stack.as('jonas.weber');
    for (let round = 0; round < 10; round += 1) {
      const rfi = `rfi_race_${round}`;
      const [a, b] = await Promise.all([
        maria.post(`/v1/entities/${ALDER}/rfis/${rfi}/claim`),
        jonas.post(`/v1/entities/${ALDER}/rfis/${rfi}/claim`),
      ]);
      const statuses = [a.status, b.status].sort();
      expect(statuses).toEqual([200, 409]);
      const winner = a.status === 200 ? 'maria.keller' : 'jonas.weber';
      const loser = a.status === 200 ? b : a;
      expect(loser.body).toMatchObject({ error: { code: 'held_by_other', holder: winner } });
      const rows = await stack.sql.query(
        'SELECT holder, version FROM rfi_assignments WHERE legal_entity_id = $1 AND rfi_id = $2',
        [ALDER, rfi],
      );
      expect(rows.rows).toEqual([{ holder: winner, version: 1 }]);
    }
  });

  it('a holder releases, an admin reassigns only from the holder they saw, and a checker-only analyst cannot claim', async () => {
    const maria = stack.as('maria.keller');
    const jonas = stack.as('jonas.weber');
    const lea = stack.as('lea.fischer');
    expect((await jonas.post(`/v1/entities/${ALDER}/rfis/rfi_hand/claim`)).body).toMatchObject({
      holder: 'jonas.weber',
    });
    // Claiming again is harmless for the holder.
    expect((await jonas.post(`/v1/entities/${ALDER}/rfis/rfi_hand/claim`)).status).toBe(200);
    // Lea is a checker at Alder, not a maker.
    expect((await lea.post(`/v1/entities/${ALDER}/rfis/rfi_free/claim`)).body).toMatchObject({
      error: { code: 'forbidden' },
    });
    // Maria (admin) reassigns from a holder she did not see: nothing changes.
    const stale = await maria.post(`/v1/entities/${ALDER}/rfis/rfi_hand/reassign`, {
      from: null,
      to: 'maria.keller',
    });
    expect(stale.body).toMatchObject({ error: { code: 'held_by_other', holder: 'jonas.weber' } });
    const moved = await maria.post(`/v1/entities/${ALDER}/rfis/rfi_hand/reassign`, {
      from: 'jonas.weber',
      to: 'maria.keller',
    });
    expect(moved.body).toMatchObject({ holder: 'maria.keller', version: 2 });
    // Jonas no longer holds it: his release is refused, Maria's goes through.
    expect((await jonas.post(`/v1/entities/${ALDER}/rfis/rfi_hand/release`)).status).toBe(409);
    expect((await maria.post(`/v1/entities/${ALDER}/rfis/rfi_hand/release`)).body).toMatchObject({
      holder: null,
    });
    const list = await lea.get<{ assignments: { rfiId: string; holder: string | null }[] }>(
      `/v1/entities/${ALDER}/assignments`,
    );
    expect(list.body.assignments.find((a) => a.rfiId === 'rfi_hand')).toMatchObject({ holder: null });
    const row = await stack.sql.query('SELECT holder, version FROM rfi_assignments WHERE rfi_id = $1', [
      'rfi_hand',
    ]);
    expect(row.rows).toEqual([{ holder: null, version: 3 }]);
  });

  it('an analyst with no role in an entity sees nothing of it', async () => {
    const jonas = stack.as('jonas.weber');
    const res = await jonas.get('/v1/entities/le_demo_birch/assignments');
    expect(res.status).toBe(404);
  });
});

describe('roles', () => {
  it('an admin grants roles per entity, which take effect at once; others cannot, and an admin keeps their own admin role', async () => {
    const maria = stack.as('maria.keller');
    const lea = stack.as('lea.fischer');
    expect((await lea.post(`/v1/entities/${ALDER}/rfis/rfi_roles/claim`)).status).toBe(403);
    expect(
      (await stack.as('jonas.weber').put(`/v1/entities/${ALDER}/members/lea.fischer`, { roles: ['maker'] }))
        .status,
    ).toBe(403);
    const granted = await maria.put(`/v1/entities/${ALDER}/members/lea.fischer`, {
      roles: ['checker', 'maker'],
    });
    expect(granted.body).toEqual({
      legalEntityId: ALDER,
      subject: 'lea.fischer',
      roles: ['checker', 'maker'],
    });
    expect((await lea.post(`/v1/entities/${ALDER}/rfis/rfi_roles/claim`)).body).toMatchObject({
      holder: 'lea.fischer',
    });
    const self = await maria.put(`/v1/entities/${ALDER}/members/maria.keller`, { roles: ['maker'] });
    expect(self.body).toMatchObject({ error: { code: 'conflict' } });
    const rows = await stack.sql.query(
      'SELECT subject, role FROM member_roles WHERE legal_entity_id = $1 AND subject IN ($2, $3) ORDER BY subject, role',
      [ALDER, 'lea.fischer', 'maria.keller'],
    );
    expect(rows.rows).toEqual([
      { subject: 'lea.fischer', role: 'checker' },
      { subject: 'lea.fischer', role: 'maker' },
      { subject: 'maria.keller', role: 'admin' },
      { subject: 'maria.keller', role: 'maker' },
    ]);
  });
});
