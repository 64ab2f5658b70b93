import { describe, expect, it } from 'vitest';
import type { RfiQuestion } from '../../src/shared/api/rfis';
import type { AppError } from '../../src/shared/ipc/errors';
import {
  OTHER_BANK,
  afterReRead,
  afterRunFailure,
  afterSendFailure,
  afterStop,
  conflictStep,
  entrySchema,
  hasContent,
  isFinished,
  retriedPatch,
  sendingPatch,
  sentStep,
  startPatch,
  upgradeStored,
} from '../../src/main/rfi-answers/answer-state';
import type { OutboxEntry } from '../../src/main/rfi-answers/answer-state';

/** The answer's state machine as pure functions: each transition from each state. */

const t = '2026-11-01T00:00:00.000Z';
const scope = { profileId: 'p_alder', origin: 'https://bank.test', legalEntityId: 'le_1' };

function entry(patch: Partial<OutboxEntry> = {}): OutboxEntry {
  return entrySchema.parse({
    id: 'a_1',
    scope,
    rfiId: 'rfi_1',
    questionId: 'q_1',
    questionType: 'transaction.purpose',
    text: 'Freight, invoice 4411.',
    documents: [
      {
        ref: 'f_1',
        name: 'invoice.pdf',
        contentType: 'application/pdf',
        documentType: 'transaction_supporting_document',
        sizeBytes: 10,
        documentId: 'doc_1',
        url: 'http://bank.test/u/doc_1',
        expiresAt: t,
        uploaded: true,
        sha256: 'ab',
      },
    ],
    state: 'queued',
    knownResponseIds: ['r_old'],
    attempts: 0,
    failures: 0,
    nextAttemptAt: 0,
    lastError: null,
    conflict: null,
    responseId: null,
    createdAt: t,
    updatedAt: t,
    ...patch,
  });
}

function question(status: string, responses: RfiQuestion['responses'] = []): RfiQuestion {
  return {
    id: 'q_1',
    status,
    question_type: 'transaction.purpose',
    question_data: { question_text: 'Why?', comment: '', document_ids: [] },
    created_at: t,
    updated_at: t,
    responses,
  };
}

const response = (
  id: string,
  responder: string,
  text: string,
  docs: string[],
): RfiQuestion['responses'][number] =>
  ({
    id,
    responder_type: responder,
    created_at: t,
    response: { 'transaction.purpose': { response_text: text, document_ids: docs } },
  }) as unknown as RfiQuestion['responses'][number];

const err = (e: Partial<AppError> & Pick<AppError, 'kind'>): AppError => ({ message: 'm', ...e });

describe('answer state: finished, restart and older files', () => {
  it('sent, failed and conflict are finished; the rest are on their way', () => {
    expect(['sent', 'failed', 'conflict'].every((s) => isFinished(s as OutboxEntry['state']))).toBe(true);
    expect(
      ['queued', 'uploading', 'sending', 'verifying'].some((s) => isFinished(s as OutboxEntry['state'])),
    ).toBe(false);
  });

  it('a restart verifies an answer stopped while sending, queues one stopped while uploading, leaves the rest', () => {
    expect(afterStop(entry({ state: 'sending' }))).toEqual({ state: 'verifying' });
    expect(afterStop(entry({ state: 'uploading' }))).toEqual({ state: 'queued' });
    for (const state of ['queued', 'verifying', 'sent', 'failed', 'conflict'] as const) {
      expect(afterStop(entry({ state }))).toBeNull();
    }
  });

  it('an answer from before scoping adopts the active bank; a sent one from before drops its content', () => {
    const active = { profileId: 'p_birch', origin: 'https://b.test', legalEntityId: null };
    expect(upgradeStored(entry({ scope: undefined }), () => active)).toEqual({ scope: active });
    const old = entry({ state: 'sent' });
    expect(hasContent(old)).toBe(true);
    const patch = upgradeStored(old, () => active)!;
    expect(hasContent({ ...old, ...patch })).toBe(false);
    expect(patch.documents?.[0]).toMatchObject({
      documentId: 'doc_1',
      sha256: 'ab',
      ref: '',
      name: '',
      url: null,
    });
    expect(upgradeStored(entry(), () => active)).toBeNull();
  });
});

describe('answer state: on its way', () => {
  it('starts uploading when a document is not uploaded yet, and remembers the responses already there', () => {
    const q = question('action_required', [response('r_1', 'staff', 'Why?', [])]);
    const e = entry();
    e.documents[0]!.uploaded = false;
    expect(startPatch(e, q)).toEqual({ state: 'uploading', knownResponseIds: ['r_1'] });
    expect(startPatch(entry(), q)).toEqual({ state: 'queued', knownResponseIds: ['r_1'] });
  });

  it('a question no longer awaiting a response is a conflict naming what changed', () => {
    const q = question('closed', [response('r_2', 'staff', 'Resolved by phone.', [])]);
    const step = conflictStep(q);
    expect(step.outcome).toBe('failed');
    expect(step.patch).toMatchObject({
      state: 'conflict',
      conflict: { questionStatus: 'closed', latestStaffResponse: 'Resolved by phone.' },
    });
  });

  it('sending counts an attempt; sent keeps the response id and no content', () => {
    expect(sendingPatch(entry({ attempts: 2 }))).toEqual({ state: 'sending', attempts: 3 });
    const step = sentStep(entry({ state: 'sending' }), 'r_9');
    expect(step.outcome).toBe('done');
    expect(step.patch).toMatchObject({ state: 'sent', responseId: 'r_9', text: '', lastError: null });
  });
});

describe('answer state: after the POST failed', () => {
  it('transient (429, 401): queued again after the server-given wait', () => {
    const step = afterSendFailure(entry(), err({ kind: 'rate_limited', status: 429, retryAfterMs: 1500 }));
    expect(step).toMatchObject({ outcome: 'retry', afterMs: 1500, patch: { state: 'queued' } });
    expect(step.error?.kind).toBe('rate_limited');
  });

  it('ambiguous (offline, 5xx, 409): verified before anything is sent again', () => {
    for (const e of [
      err({ kind: 'offline' }),
      err({ kind: 'server', status: 502 }),
      err({ kind: 'conflict', status: 409 }),
    ]) {
      const step = afterSendFailure(entry(), e);
      expect(step).toMatchObject({
        outcome: 'verify',
        patch: { state: 'verifying', lastError: { kind: e.kind } },
      });
      expect(step).not.toHaveProperty('afterMs');
    }
  });

  it('a refusal (400) fails the answer with why', () => {
    const step = afterSendFailure(entry(), err({ kind: 'invalid', status: 400, message: 'text required' }));
    expect(step).toMatchObject({
      outcome: 'failed',
      patch: { state: 'failed', lastError: { message: 'text required' } },
    });
  });

  it('422 QUESTION_NOT_AWAITING_RESPONSE: conflict, with what the re-read question says or unknown', () => {
    const refusal = err({ kind: 'precondition', status: 422, reason: 'QUESTION_NOT_AWAITING_RESPONSE' });
    const known = afterSendFailure(entry(), refusal, question('closed'));
    expect(known).toMatchObject({
      outcome: 'failed',
      patch: { state: 'conflict', conflict: { questionStatus: 'closed' } },
    });
    const unknown = afterSendFailure(entry(), refusal, null);
    expect(unknown.patch?.conflict).toMatchObject({ questionStatus: 'unknown', latestStaffResponse: null });
    expect(unknown.error).toBeUndefined();
  });

  it('DOCUMENT_NOT_UPLOADED: every document uploaded again, until the third failure fails it', () => {
    const refusal = err({ kind: 'precondition', status: 422, reason: 'DOCUMENT_NOT_UPLOADED' });
    const again = afterSendFailure(entry({ failures: 1 }), refusal);
    expect(again).toMatchObject({ outcome: 'retry', patch: { state: 'queued' } });
    expect(again.patch?.documents?.[0]).toMatchObject({ uploaded: false, url: null, documentId: null });
    expect(afterSendFailure(entry({ failures: 3 }), refusal)).toMatchObject({
      outcome: 'failed',
      patch: { state: 'failed' },
    });
  });

  it("the profile's bank changed: waits uncounted, verifying when an earlier POST may have gone", () => {
    const moved = err({ kind: 'local', reason: OTHER_BANK });
    expect(afterSendFailure(entry({ attempts: 1 }), moved)).toEqual({
      outcome: 'wait',
      patch: { state: 'queued' },
    });
    expect(afterSendFailure(entry({ attempts: 2 }), moved)).toEqual({
      outcome: 'wait',
      patch: { state: 'verifying' },
    });
  });
});

describe('answer state: verifying and other failures', () => {
  it('re-reading finds our response (new, customer, same text and documents) and nothing else', () => {
    const e = entry({ state: 'verifying' });
    const ours = response('r_new', 'customer', e.text, ['doc_1']);
    expect(afterReRead(e, question('action_required', [ours]))).toEqual({
      next: 'sent',
      responseId: 'r_new',
    });
    const otherText = response('r_new', 'customer', 'something else', ['doc_1']);
    expect(afterReRead(e, question('action_required', [otherText]))).toEqual({ next: 'send' });
    const alreadyKnown = response('r_old', 'customer', e.text, ['doc_1']);
    expect(afterReRead(e, question('in_review', [alreadyKnown]))).toEqual({ next: 'conflict' });
  });

  it('a send job taken over from another workstation: its response (same text, as many documents, its own ids) is ours', () => {
    const base = entry();
    const e = entry({
      state: 'verifying',
      knownResponseIds: null,
      documents: base.documents.map((d) => ({ ...d, documentId: null, url: null, uploaded: false })),
      teamJob: { id: 'job_1', legalEntityId: 'le_1', leaseNumber: 2, idempotencyKey: 'k_1' },
    });
    const theirs = response('r_theirs', 'customer', e.text, ['doc_uploaded_elsewhere']);
    expect(afterReRead(e, question('in_review', [theirs]))).toEqual({ next: 'sent', responseId: 'r_theirs' });
    const twoDocs = response('r_two', 'customer', e.text, ['doc_a', 'doc_b']);
    expect(afterReRead(e, question('in_review', [twoDocs]))).toEqual({ next: 'conflict' });
    expect(afterReRead(e, question('action_required'))).toEqual({ next: 'send' });
    // Not taken over (its documents uploaded here): only its own document ids count.
    expect(
      afterReRead(entry({ state: 'verifying', knownResponseIds: null }), question('in_review', [theirs])),
    ).toEqual({ next: 'conflict' });
  });

  it('a failed read while verifying is waited out; only a vanished RFI or question ends it', () => {
    const verifying = entry({ state: 'verifying' });
    expect(afterRunFailure(verifying, err({ kind: 'offline' }))).toMatchObject({
      outcome: 'verify',
      patch: { state: 'verifying' },
    });
    expect(afterRunFailure(verifying, err({ kind: 'invalid', status: 400 }))).toMatchObject({
      outcome: 'verify',
    });
    expect(afterRunFailure(verifying, err({ kind: 'not_found', status: 404 }))).toMatchObject({
      outcome: 'failed',
      patch: { state: 'failed' },
    });
    expect(afterRunFailure(entry({ state: 'sending' }), err({ kind: 'offline' })).patch?.state).toBe(
      'verifying',
    );
  });

  it('before sending, a failed read or upload is retried and a refusal fails; another bank waits', () => {
    const uploading = entry({ state: 'uploading' });
    expect(afterRunFailure(uploading, err({ kind: 'offline' }))).toMatchObject({
      outcome: 'retry',
      patch: { state: 'queued' },
    });
    expect(
      afterRunFailure(uploading, err({ kind: 'local', message: 'invoice.pdf can no longer be read.' })),
    ).toMatchObject({
      outcome: 'failed',
    });
    expect(afterRunFailure(uploading, err({ kind: 'local', reason: OTHER_BANK }))).toEqual({
      outcome: 'wait',
      patch: { state: 'queued' },
    });
  });

  it("the analyst's retry checks a failed or conflicting answer from the start; a sent one stays", () => {
    expect(retriedPatch(entry({ state: 'failed' }))).toEqual({ state: 'queued', conflict: null });
    expect(retriedPatch(entry({ state: 'conflict' }))).toEqual({ state: 'queued', conflict: null });
    expect(retriedPatch(entry({ state: 'verifying' }))).toEqual({ state: 'verifying', conflict: null });
    expect(retriedPatch(entry({ state: 'sent' }))).toBeNull();
  });
});
