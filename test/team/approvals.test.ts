import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ActivityEntry, Approval, SendJob } from '../../src/shared/team/schemas';
import { ALDER, startTeamStack, type TeamStack } from './support';

/** Four-eyes approval: per-entity rules, content by hash, and self-approval refused twice over. */
let stack: TeamStack;
beforeAll(async () => {
  stack = await startTeamStack();
  const rules = await stack.as('maria.keller').put(`/v1/entities/${ALDER}/approval-rules`, {
    rules: [
      { kind: 'rfi_answer', rfiType: null },
      { kind: 'return', above: '100000' },
    ],
  });
  expect(rules.status).toBe(200);
});
afterAll(async () => stack?.close());

const sha = (c: string) => c.repeat(64);
const answer = (rfiId: string, text: string) => ({
  kind: 'rfi_answer' as const,
  rfiId,
  rfiType: 'kyc_refresh',
  text,
  documentSha256s: [sha('a')],
});

describe('approval rules', () => {
  it('only an admin sets them; a return at or below the amount needs no checker, above it does', async () => {
    const jonas = stack.as('jonas.weber');
    expect((await jonas.put(`/v1/entities/${ALDER}/approval-rules`, { rules: [] })).status).toBe(403);
    const base = { kind: 'return', transactionId: 'tx_1', currency: 'USD', reason: 'duplicate' };
    const small = await jonas.post(`/v1/entities/${ALDER}/approval-rules/evaluate`, {
      ...base,
      amount: '100000',
    });
    const large = await jonas.post(`/v1/entities/${ALDER}/approval-rules/evaluate`, {
      ...base,
      amount: '100001',
    });
    expect([small.body['required'], large.body['required']]).toEqual([false, true]);
    const rows = await stack.sql.query(
      'SELECT kind, rfi_type, above FROM approval_rules WHERE legal_entity_id = $1 ORDER BY id',
      [ALDER],
    );
    expect(rows.rows).toEqual([
      { kind: 'rfi_answer', rfi_type: null, above: null },
      { kind: 'return', rfi_type: null, above: '100000' },
    ]);
  });
});

describe('four-eyes approval', () => {
  it('the maker cannot approve their own answer: the server refuses, and so does the database when the server is bypassed', async () => {
    const jonas = stack.as('jonas.weber'); // maker and checker at Alder
    const asked = await jonas.post<Approval>('/v1/approvals', {
      legalEntityId: ALDER,
      objectId: 'rfi_self',
      content: answer('rfi_self', 'Our passport copy'),
    });
    expect(asked.status).toBe(201);
    const refused = await jonas.post(`/v1/approvals/${asked.body.id}/approve`, {
      contentHash: asked.body.contentHash,
    });
    expect(refused.status).toBe(403);
    expect(refused.body).toMatchObject({ error: { code: 'self_approval' } });

    // Going around the server: the database's constraint refuses it.
    await expect(
      stack.sql.query(
        "UPDATE approvals SET status = 'approved', checker = maker, decided_at = now() WHERE id = $1",
        [asked.body.id],
      ),
    ).rejects.toMatchObject({ code: '23514', constraint: 'approvals_no_self_approval' });
    await expect(
      stack.sql.query(
        "INSERT INTO approvals (legal_entity_id, object_kind, object_id, content_hash, content, maker, status, checker) VALUES ($1, 'rfi_answer', 'rfi_forged', $2, '{}', 'jonas.weber', 'approved', 'jonas.weber')",
        [ALDER, sha('b')],
      ),
    ).rejects.toMatchObject({ code: '23514', constraint: 'approvals_no_self_approval' });
    const row = await stack.sql.query('SELECT status, checker FROM approvals WHERE id = $1', [asked.body.id]);
    expect(row.rows).toEqual([{ status: 'pending', checker: null }]);

    // Another checker approves it.
    const ok = await stack
      .as('lea.fischer')
      .post<Approval>(`/v1/approvals/${asked.body.id}/approve`, { contentHash: asked.body.contentHash });
    expect(ok.body).toMatchObject({ status: 'approved', checker: 'lea.fischer', maker: 'jonas.weber' });
  });

  it('an edit after approval clears it: the old content can no longer be sent, the new one waits for a checker', async () => {
    const maria = stack.as('maria.keller');
    const lea = stack.as('lea.fischer');
    const first = await maria.post<Approval>('/v1/approvals', {
      legalEntityId: ALDER,
      objectId: 'rfi_edit',
      content: answer('rfi_edit', 'First text'),
    });
    expect(
      (await lea.post(`/v1/approvals/${first.body.id}/approve`, { contentHash: first.body.contentHash }))
        .body,
    ).toMatchObject({ status: 'approved' });

    const edited = await maria.post<Approval>('/v1/approvals', {
      legalEntityId: ALDER,
      objectId: 'rfi_edit',
      content: answer('rfi_edit', 'First text, corrected'),
    });
    expect(edited.status).toBe(201);
    expect(edited.body.contentHash).not.toBe(first.body.contentHash);
    expect((await lea.get<Approval>(`/v1/approvals/${first.body.id}`)).body.status).toBe('cleared');

    // The checker's approval of what they read before the edit is refused.
    const late = await lea.post(`/v1/approvals/${first.body.id}/approve`, {
      contentHash: first.body.contentHash,
    });
    expect(late.body).toMatchObject({ error: { code: 'content_changed' } });
    // Neither content can be sent now: the old one's approval is gone, the new one has none yet.
    for (const text of ['First text', 'First text, corrected']) {
      const send = await maria.post('/v1/send-jobs', {
        legalEntityId: ALDER,
        objectId: 'rfi_edit',
        content: answer('rfi_edit', text),
      });
      expect(send.body).toMatchObject({ error: { code: 'approval_required' } });
    }
    const rows = await stack.sql.query(
      'SELECT status FROM approvals WHERE object_id = $1 ORDER BY requested_at',
      ['rfi_edit'],
    );
    expect(rows.rows.map((r: { status: string }) => r.status)).toEqual(['cleared', 'pending']);
    // The database keeps an approval's content fixed: changing it in place is refused.
    await expect(
      stack.sql.query('UPDATE approvals SET content_hash = $2 WHERE id = $1', [edited.body.id, sha('c')]),
    ).rejects.toMatchObject({
      code: '23000',
    });

    const approved = await lea.post<Approval>(`/v1/approvals/${edited.body.id}/approve`, {
      contentHash: edited.body.contentHash,
    });
    expect(approved.body.status).toBe('approved');
    const job = await maria.post<SendJob>('/v1/send-jobs', {
      legalEntityId: ALDER,
      objectId: 'rfi_edit',
      content: answer('rfi_edit', 'First text, corrected'),
    });
    expect(job.status).toBe(201);
    expect(job.body).toMatchObject({
      status: 'queued',
      contentHash: edited.body.contentHash,
      leaseNumber: 0,
    });
  });

  it('a rejection carries its reason back to the maker', async () => {
    const maria = stack.as('maria.keller');
    const asked = await maria.post<Approval>('/v1/approvals', {
      legalEntityId: ALDER,
      objectId: 'rfi_rej',
      content: answer('rfi_rej', 'Too short'),
    });
    const noReason = await stack
      .as('lea.fischer')
      .post(`/v1/approvals/${asked.body.id}/reject`, { contentHash: asked.body.contentHash, reason: '  ' });
    expect(noReason.status).toBe(400);
    const rejected = await stack.as('lea.fischer').post(`/v1/approvals/${asked.body.id}/reject`, {
      contentHash: asked.body.contentHash,
      reason: 'Attach the certified copy',
    });
    expect(rejected.body).toMatchObject({
      status: 'rejected',
      reason: 'Attach the certified copy',
      checker: 'lea.fischer',
    });
    const seen = await maria.get<Approval>(`/v1/approvals/${asked.body.id}`);
    expect(seen.body).toMatchObject({ status: 'rejected', reason: 'Attach the certified copy' });
    await expect(
      stack.sql.query('UPDATE approvals SET reason = NULL WHERE id = $1', [asked.body.id]),
    ).rejects.toMatchObject({
      code: '23514',
      constraint: 'approvals_rejection_has_reason',
    });
    // The four-eyes trail is in the team log: who asked for which content, who rejected it and why.
    const log = await maria.get<{ entries: ActivityEntry[] }>(`/v1/entities/${ALDER}/activity?since=0`);
    const trail = log.body.entries.filter((e) => e.object?.id === 'rfi_rej');
    expect(trail.map((e) => [e.action, e.actor])).toEqual([
      ['approval.requested', 'maria.keller'],
      ['approval.rejected', 'lea.fischer'],
    ]);
    expect(trail[1]!.detail).toEqual({
      rfiId: 'rfi_rej',
      contentHash: asked.body.contentHash,
      reason: 'Attach the certified copy',
      maker: 'maria.keller',
    });
  });

  it('a workstation’s list holds every live approval however old, and the newest decided ones, never the oldest page', async () => {
    const maria = stack.as('maria.keller');
    const ask = async (objectId: string) =>
      (
        await maria.post<Approval>('/v1/approvals', {
          legalEntityId: ALDER,
          objectId,
          content: answer(objectId, objectId),
        })
      ).body;
    const waiting = await ask('rfi_list_waiting');
    const approved = await ask('rfi_list_approved');
    expect(
      (
        await stack
          .as('lea.fischer')
          .post(`/v1/approvals/${approved.id}/approve`, { contentHash: approved.contentHash })
      ).status,
    ).toBe(200);
    // Both asked long ago; then a long history of decided approvals, the oldest of them older still.
    await stack.sql.query(
      "UPDATE approvals SET requested_at = timestamptz '2021-03-01' + (object_id = 'rfi_list_approved')::int * interval '1 day' WHERE id = ANY($1)",
      [[waiting.id, approved.id]],
    );
    await stack.sql.query(
      `INSERT INTO approvals (legal_entity_id, object_kind, object_id, content_hash, content, maker, status, checker, reason, requested_at, decided_at)
       SELECT $1, 'rfi_answer', 'rfi_hist_' || n, $2, $3::jsonb, 'maria.keller', 'rejected', 'lea.fischer', 'Not this one',
              CASE WHEN n = 0 THEN timestamptz '2020-01-01' ELSE now() - n * interval '1 minute' END, now()
       FROM generate_series(0, 600) AS n`,
      [ALDER, sha('c'), JSON.stringify(answer('rfi_hist', 'old'))],
    );

    const list = (await maria.get<{ approvals: Approval[] }>(`/v1/entities/${ALDER}/approvals`)).body
      .approvals;
    const ids = list.map((a) => a.object.id);
    expect(ids).toContain('rfi_list_waiting');
    expect(ids).toContain('rfi_list_approved');
    expect(ids).not.toContain('rfi_hist_0');
    expect(ids).toContain('rfi_hist_1');
    // Oldest first, each once; no more than the live ones beside the newest 500.
    const times = list.map((a) => Date.parse(a.requestedAt));
    expect(times).toEqual([...times].sort((x, y) => x - y));
    expect(new Set(list.map((a) => a.id)).size).toBe(list.length);
    expect(list.length).toBeLessThanOrEqual(500 + 2);
    // Its send finished, the approved one is history like the rest.
    await stack.sql.query(
      `INSERT INTO send_jobs (legal_entity_id, object_kind, object_id, content_hash, approval_id, idempotency_key, status, created_by, created_at)
       VALUES ($1, 'rfi_answer', 'rfi_list_approved', $2, $3, gen_random_uuid()::text, 'done', 'maria.keller', now())`,
      [ALDER, approved.contentHash, approved.id],
    );
    const after = (await maria.get<{ approvals: Approval[] }>(`/v1/entities/${ALDER}/approvals`)).body
      .approvals;
    expect(after.map((a) => a.object.id)).not.toContain('rfi_list_approved');
    expect(after.map((a) => a.object.id)).toContain('rfi_list_waiting');
  });
});
