import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningSandbox } from '../../src/sandbox/index';
import { Rfi, RfiList, RfiResponse } from '../../src/shared/api';
import { RFI_TYPES } from '../../src/shared/catalogue';
import { client, err, fx, start, type Json } from './helpers';

let sb: RunningSandbox;
let c: ReturnType<typeof client>;
let f: ReturnType<typeof fx>;

beforeAll(async () => {
  sb = await start();
  c = client(sb);
  f = fx(sb);
});
afterAll(async () => {
  await sb.close();
});

async function getRfi(id: string, token = f.viewerA) {
  const r = await c('GET', `/v1/rfis/${id}`, { token });
  expect(r.status, r.text).toBe(200);
  return Rfi.parse(r.body);
}

async function raise(questions: { question_type: string; question_text: string }[], extra: Json = {}) {
  const r = await c('POST', '/v1/sandbox/rfis', {
    body: {
      type: 'transaction',
      related_id: f.a.incoming_transfers[0]?.transaction_id,
      description: 'Test RFI',
      questions,
      ...extra,
    },
  });
  expect(r.status, r.text).toBe(200);
  return Rfi.parse(r.body);
}

const textQ = { question_type: 'transaction.purpose', question_text: 'Why?' };
const textQ2 = { question_type: 'transaction.source_of_funds', question_text: 'From where?' };

function answer(qt: string, text: string, docs: string[] = []): Json {
  return { question_type: qt, [qt]: { response_text: text, document_ids: docs } };
}

async function respond(rfiId: string, qid: string, body: Json, token = f.adminA) {
  return c('POST', `/v1/rfis/${rfiId}/questions/${qid}/responses`, { token, body });
}

describe('seeded RFIs', () => {
  it('cover all 7 types, several statuses, text and document questions, customer/staff/system responses', async () => {
    const all: Json[] = [];
    for (const le of [f.a, f.b]) {
      const r = await c('GET', '/v1/rfis', { token: le.tokens.admin });
      all.push(...(RfiList.parse(r.body).data as Json[]));
    }
    const list = all.map((x) => Rfi.parse(x));
    expect(new Set(list.map((r) => r.type))).toEqual(new Set(RFI_TYPES));
    const statuses = new Set(list.map((r) => r.status));
    for (const s of ['action_required', 'pending_review', 'approved', 'closed', 'rejected', 'timeout']) {
      expect(statuses, s).toContain(s);
    }
    const responders = new Set(
      list.flatMap((r) => r.questions.flatMap((q) => q.responses.map((x) => x.responder_type))),
    );
    expect(responders).toEqual(new Set(['customer', 'staff', 'system']));
    const docsAnswered = list.some((r) =>
      r.questions.some((q) =>
        q.responses.some((x) => Object.values(x.response).some((v) => v.document_ids.length > 0)),
      ),
    );
    expect(docsAnswered).toBe(true);
    // one RFI close to its deadline (less than a day left)
    const now = Date.parse(String(((await c('GET', '/v1/sandbox/clock')).body as Json).now));
    const near = list.filter((r) =>
      r.questions.some(
        (q) =>
          q.status === 'action_required' && Date.parse(q.updated_at) + 30 * 86_400_000 - now < 86_400_000,
      ),
    );
    expect(near.length).toBeGreaterThanOrEqual(1);
  });
});

describe('GET /v1/rfis: filters and pagination', () => {
  it('pages with page_size and next_page_token; filters by ids, types, status, related_id, updated_since', async () => {
    const created = await c<Json>('POST', '/v1/sandbox/rfis/bulk', {
      body: { count: 250, legal_entity_id: f.b.id },
    });
    expect(created.status).toBe(200);
    expect(created.body.created).toBe(250);
    const seen: string[] = [];
    let token: string | null = null;
    let pages = 0;
    do {
      const q: string = `/v1/rfis?page_size=100${token ? `&page_token=${encodeURIComponent(token)}` : ''}`;
      const r = await c('GET', q, { token: f.adminB });
      expect(r.status).toBe(200);
      const page = RfiList.parse(r.body);
      expect(page.data.length).toBeLessThanOrEqual(100);
      seen.push(...page.data.map((x) => x.id));
      token = page.next_page_token;
      pages++;
    } while (token);
    expect(pages).toBe(3);
    expect(new Set(seen).size).toBe(seen.length);
    expect(seen.length).toBe(250 + f.b.rfi_ids.length);

    const def = RfiList.parse((await c('GET', '/v1/rfis', { token: f.adminB })).body);
    expect(def.data).toHaveLength(100);

    const [x, y] = f.a.rfi_ids;
    const byIds = RfiList.parse(
      (await c('GET', `/v1/rfis?ids=${x},${y},${f.b.rfi_ids[0]}`, { token: f.adminA })).body,
    );
    expect(byIds.data.map((r) => r.id).sort()).toEqual([x, y].sort());

    const byType = RfiList.parse(
      (await c('GET', '/v1/rfis?types=segment_upgrade,account', { token: f.adminA })).body,
    );
    expect(byType.data.length).toBeGreaterThan(0);
    expect(byType.data.every((r) => r.type === 'segment_upgrade' || r.type === 'account')).toBe(true);

    const byStatus = RfiList.parse((await c('GET', '/v1/rfis?status=approved', { token: f.adminA })).body);
    expect(byStatus.data.length).toBeGreaterThan(0);
    expect(byStatus.data.every((r) => r.status === 'approved')).toBe(true);

    const rel = f.a.incoming_transfers[0]?.transaction_id ?? '';
    const byRel = RfiList.parse((await c('GET', `/v1/rfis?related_id=${rel}`, { token: f.adminA })).body);
    expect(byRel.data.length).toBeGreaterThan(0);
    expect(byRel.data.every((r) => r.related_id === rel)).toBe(true);

    const since = new Date(Date.now() - 3 * 86_400_000).toISOString();
    const bySince = RfiList.parse(
      (await c('GET', `/v1/rfis?updated_since=${since}`, { token: f.adminA })).body,
    );
    expect(bySince.data.every((r) => Date.parse(r.updated_at) > Date.parse(since))).toBe(true);
    const total = RfiList.parse((await c('GET', '/v1/rfis', { token: f.adminA })).body);
    expect(bySince.data.length).toBeLessThan(total.data.length);

    // only the caller's legal entity
    expect(total.data.every((r) => r.legal_entity_id === f.a.id)).toBe(true);
  });

  it('refuses bad query parameters with 400 naming them', async () => {
    for (const [q, field] of [
      ['page_size=0', 'page_size'],
      ['page_size=501', 'page_size'],
      ['page_size=abc', 'page_size'],
      ['page_token=zzz', 'page_token'],
      ['updated_since=yesterday', 'updated_since'],
      ['colour=red', 'colour'],
      ['ids=a&ids=b', 'ids'],
    ] as const) {
      const r = await c('GET', `/v1/rfis?${q}`, { token: f.adminA });
      expect(r.status, q).toBe(400);
      expect(err(r).message).toContain(`${field}:`);
    }
  });

  it('GET /v1/rfis/:id: 404 for another legal entity and unknown ids', async () => {
    expect((await c('GET', `/v1/rfis/${f.b.rfi_ids[0]}`, { token: f.adminA })).status).toBe(404);
    expect((await c('GET', '/v1/rfis/rfi_missing', { token: f.adminA })).status).toBe(404);
  });
});

describe('question transitions and derived RFI status (spec 3.3)', () => {
  it('customer response → pending_review; staff follow-up → action_required; staff action → approved; RFI action', async () => {
    const rfi = await raise([textQ, textQ2]);
    expect(rfi.status).toBe('action_required');
    const [q1, q2] = rfi.questions;
    if (!q1 || !q2) throw new Error('questions');
    const r1 = await respond(rfi.id, q1.id, answer('transaction.purpose', 'Payment for freight'));
    expect(r1.status, r1.text).toBe(200);
    const resp = RfiResponse.parse(r1.body);
    expect(resp).toMatchObject({
      question_id: q1.id,
      responder_type: 'customer',
      response: { 'transaction.purpose': { response_text: 'Payment for freight', document_ids: [] } },
    });
    let now = await getRfi(rfi.id);
    expect(now.questions[0]?.status).toBe('pending_review');
    expect(now.status).toBe('action_required'); // q2 still action_required (rule 1)

    // a second response to a question in pending_review is refused
    const dup = await respond(rfi.id, q1.id, answer('transaction.purpose', 'again'));
    expect(dup.status).toBe(422);
    expect(err(dup).reason).toBe('QUESTION_NOT_AWAITING_RESPONSE');

    await respond(rfi.id, q2.id, answer('transaction.source_of_funds', 'Trade receivables'));
    now = await getRfi(rfi.id);
    expect(now.status).toBe('pending_review'); // rule 2

    const follow = await c('POST', `/v1/sandbox/rfis/${rfi.id}/questions/${q2.id}/admin-responses`, {
      body: { response_text: 'Which customers?', document_ids: [] },
    });
    expect(follow.status).toBe(200);
    now = Rfi.parse(follow.body);
    expect(now.questions[1]?.status).toBe('action_required');
    expect(now.status).toBe('action_required');
    expect(now.questions[1]?.responses.map((x) => x.responder_type)).toEqual(['customer', 'staff']);

    // RFI action refused while a question is not final
    const early = await c('POST', `/v1/sandbox/rfis/${rfi.id}/action`, { body: { action: 'approve' } });
    expect(early.status).toBe(422);
    expect(err(early).reason).toBe('QUESTIONS_NOT_FINAL');

    // question action only from pending_review
    const qa = await c('POST', `/v1/sandbox/rfis/${rfi.id}/questions/${q2.id}/action`, {
      body: { action: 'approve' },
    });
    expect(qa.status).toBe(422);
    expect(err(qa).reason).toBe('QUESTION_NOT_PENDING_REVIEW');

    await respond(rfi.id, q2.id, answer('transaction.source_of_funds', 'EU freight customers'));
    for (const q of [q1, q2]) {
      const a = await c('POST', `/v1/sandbox/rfis/${rfi.id}/questions/${q.id}/action`, {
        body: { action: 'approve', response_text: 'Thanks' },
      });
      expect(a.status).toBe(200);
    }
    now = await getRfi(rfi.id);
    expect(now.questions.map((q) => q.status)).toEqual(['approved', 'approved']);
    expect(now.status).toBe('pending_review'); // approved only through the explicit RFI action

    const done = await c('POST', `/v1/sandbox/rfis/${rfi.id}/action`, { body: { action: 'approve' } });
    expect(done.status).toBe(200);
    expect(Rfi.parse(done.body).status).toBe('approved');
    const again = await c('POST', `/v1/sandbox/rfis/${rfi.id}/action`, { body: { action: 'close' } });
    expect(err(again).reason).toBe('RFI_ALREADY_FINAL');
  });

  it('reject and close of questions, then close of the RFI', async () => {
    const rfi = await raise([textQ, textQ2]);
    const [q1, q2] = rfi.questions;
    if (!q1 || !q2) throw new Error('questions');
    await respond(rfi.id, q1.id, answer('transaction.purpose', 'x'));
    await respond(rfi.id, q2.id, answer('transaction.source_of_funds', 'y'));
    await c('POST', `/v1/sandbox/rfis/${rfi.id}/questions/${q1.id}/action`, { body: { action: 'reject' } });
    await c('POST', `/v1/sandbox/rfis/${rfi.id}/questions/${q2.id}/action`, { body: { action: 'close' } });
    const closed = await c('POST', `/v1/sandbox/rfis/${rfi.id}/action`, { body: { action: 'close' } });
    expect(Rfi.parse(closed.body).status).toBe('closed');
    const late = await respond(rfi.id, q1.id, answer('transaction.purpose', 'late'));
    expect(err(late).reason).toBe('QUESTION_NOT_AWAITING_RESPONSE');
  });

  it('30 days after the last update without response: questions and RFI time out (clock)', async () => {
    const rfi = await raise([textQ, textQ2]);
    const [q1] = rfi.questions;
    if (!q1) throw new Error('questions');
    await c('POST', '/v1/sandbox/clock', { body: { advance_seconds: 10 * 86_400 } });
    await respond(rfi.id, q1.id, answer('transaction.purpose', 'x')); // q1 updated 10 days later
    await c('POST', '/v1/sandbox/clock', { body: { advance_seconds: 20 * 86_400 - 60 } });
    expect((await getRfi(rfi.id)).status).toBe('action_required');
    await c('POST', '/v1/sandbox/clock', { body: { advance_seconds: 120 } });
    const t = await getRfi(rfi.id);
    expect(t.status).toBe('timeout');
    expect(t.questions.map((q) => q.status)).toEqual(['timeout', 'timeout']);
    expect(t.questions[1]?.responses.at(-1)?.responder_type).toBe('system');
    const late = await respond(rfi.id, q1.id, answer('transaction.purpose', 'late'));
    expect(err(late).reason).toBe('QUESTION_NOT_AWAITING_RESPONSE');
  });

  it('the seeded near-deadline RFI times out when the clock passes its deadline', async () => {
    const s2 = await start();
    try {
      const c2 = client(s2);
      const f2 = fx(s2);
      const list = RfiList.parse(
        (await c2('GET', '/v1/rfis?status=action_required', { token: f2.adminA })).body,
      );
      const now = Date.now();
      const near = list.data.find((r) =>
        r.questions.some((q) => Date.parse(q.updated_at) + 30 * 86_400_000 - now < 86_400_000),
      );
      expect(near).toBeDefined();
      await c2('POST', '/v1/sandbox/clock', { body: { advance_seconds: 86_400 } });
      const after = Rfi.parse((await c2('GET', `/v1/rfis/${near?.id}`, { token: f2.adminA })).body);
      expect(after.status).toBe('timeout');
    } finally {
      await s2.close();
    }
  });
});

describe('response refusals', () => {
  it('400 for wrong question_type, missing content, text in a document question and vice versa; 403 viewer; 404', async () => {
    const rfi = await raise([
      textQ,
      { question_type: 'identification.individual.passport', question_text: 'Passport' },
    ]);
    const [tq, dq] = rfi.questions;
    if (!tq || !dq) throw new Error('questions');
    const cases: [string, Json, string][] = [
      [tq.id, answer('transaction.source_of_funds', 'x'), 'question_type: must be transaction.purpose'],
      [tq.id, { question_type: 'transaction.purpose' }, 'transaction.purpose: required'],
      [
        tq.id,
        answer('transaction.purpose', ''),
        'transaction.purpose.response_text: required for a text question',
      ],
      [
        tq.id,
        answer('transaction.purpose', 'x', ['doc_1']),
        'transaction.purpose.document_ids: must be empty',
      ],
      [dq.id, answer('identification.individual.passport', '', []), 'document_ids: at least one document'],
      [
        tq.id,
        { ...answer('transaction.purpose', 'x'), extra: { response_text: '', document_ids: [] } },
        'extra: unknown field',
      ],
      [
        tq.id,
        {
          question_type: 'transaction.purpose',
          'transaction.purpose': { response_text: 5, document_ids: [] },
        },
        'response_text',
      ],
    ];
    for (const [qid, body, message] of cases) {
      const r = await respond(rfi.id, qid, body);
      expect(r.status, JSON.stringify(body)).toBe(400);
      expect(err(r).message).toContain(message);
    }
    const dnu = await respond(rfi.id, dq.id, answer('identification.individual.passport', '', ['doc_nope']));
    expect(dnu.status).toBe(422);
    expect(err(dnu).reason).toBe('DOCUMENT_NOT_UPLOADED');
    const viewer = await respond(rfi.id, tq.id, answer('transaction.purpose', 'x'), f.viewerA);
    expect(viewer.status).toBe(403);
    const other = await respond(rfi.id, tq.id, answer('transaction.purpose', 'x'), f.adminB);
    expect(other.status).toBe(404);
    const noQ = await respond(rfi.id, 'rfq_missing', answer('transaction.purpose', 'x'));
    expect(noQ.status).toBe(404);
    expect((await getRfi(rfi.id)).questions.map((q) => q.status)).toEqual([
      'action_required',
      'action_required',
    ]);
  });

  it('staff endpoints validate: unknown RFI 404, bad action 400, legal entity required for unknown related_id', async () => {
    expect((await c('POST', '/v1/sandbox/rfis/rfi_x/action', { body: { action: 'approve' } })).status).toBe(
      404,
    );
    const bad = await c('POST', `/v1/sandbox/rfis/${f.a.rfi_ids[0]}/action`, { body: { action: 'maybe' } });
    expect(err(bad).message).toContain('action: must be approve, reject or close');
    const noLe = await c('POST', '/v1/sandbox/rfis', {
      body: { type: 'account', related_id: 'whatever', questions: [textQ] },
    });
    expect(noLe.status).toBe(400);
    expect(err(noLe).message).toContain('legal_entity_id');
  });
});
