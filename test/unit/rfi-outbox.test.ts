import { createHash } from 'node:crypto';
import { mkdtemp, readFile, readdir, rm, stat, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Rfi } from '../../src/shared/api/rfis';
import type { AnswerView } from '../../src/shared/ipc/channels/rfi-answers';
import { AppFailure } from '../../src/shared/ipc/errors';
import type { RfiResponseBody } from '../../src/main/bank/client';
import type { BankScope } from '../../src/main/bank/scope';
import { createLogger, memorySink } from '../../src/main/infra/log';
import { pathSource } from '../../src/main/infra/sealed-blob';
import type { UploadSource } from '../../src/main/infra/sealed-blob';
import { findOwnResponse, openOutbox } from '../../src/main/rfi-answers/outbox';
import type { NewAnswer, Outbox, OutboxBank, OutboxOptions } from '../../src/main/rfi-answers/outbox';

/**
 * The outbox state machine against a scripted in-memory bank: every transition, restart recovery,
 * ambiguous failures (re-read before resending) and expired upload URLs.
 */

type Fault =
  | 'offline'
  | 'lose-answer'
  | 'server'
  | 'expired'
  | 'not-awaiting'
  | 'invalid'
  | 'rate-limited'
  | 'in-flight';

class FakeBank implements OutboxBank {
  rfi: Rfi;
  calls: string[] = [];
  faults: Record<'getRfi' | 'createUploadUrl' | 'uploadDocument' | 'submit', Fault[]> = {
    getRfi: [],
    createUploadUrl: [],
    uploadDocument: [],
    submit: [],
  };
  uploads = new Map<string, string>();
  /** How many uploads still arrive damaged (the receipt's sha256 is not of the bytes sent). */
  damaged = 0;
  private seq = 0;

  constructor(questionType = 'transaction.purpose', status = 'action_required') {
    const t = '2026-11-01T00:00:00.000Z';
    this.rfi = {
      id: 'rfi_1',
      type: 'transaction',
      related_id: 'tx_1',
      legal_entity_id: 'le_1',
      description: 'd',
      status,
      created_at: t,
      updated_at: t,
      questions: [
        {
          id: 'q_1',
          status,
          question_type: questionType,
          question_data: { question_text: 'Why?', comment: '', document_ids: [] },
          created_at: t,
          updated_at: t,
          responses: [],
        },
      ],
    };
  }

  private fault(op: keyof FakeBank['faults']): Fault | undefined {
    return this.faults[op].shift();
  }

  private throwFor(f: Fault): never {
    switch (f) {
      case 'offline':
      case 'lose-answer':
        throw new AppFailure({ kind: 'offline', message: 'The bank could not be reached.' });
      case 'server':
        throw new AppFailure({ kind: 'server', status: 502, message: 'bad gateway' });
      case 'expired':
        throw new AppFailure({
          kind: 'forbidden',
          status: 403,
          reason: 'UPLOAD_URL_EXPIRED',
          message: 'expired',
        });
      case 'not-awaiting':
        throw new AppFailure({
          kind: 'precondition',
          status: 422,
          reason: 'QUESTION_NOT_AWAITING_RESPONSE',
          message: 'not awaiting',
        });
      case 'invalid':
        throw new AppFailure({ kind: 'invalid', status: 400, message: 'q.response_text: required' });
      case 'rate-limited':
        throw new AppFailure({ kind: 'rate_limited', status: 429, message: 'slow down', retryAfterMs: 0 });
      case 'in-flight':
        throw new AppFailure({ kind: 'conflict', status: 409, message: 'still being processed' });
    }
  }

  get question() {
    const q = this.rfi.questions[0];
    if (!q) throw new Error('no question');
    return q;
  }

  async getRfi(): Promise<Rfi> {
    this.calls.push('getRfi');
    const f = this.fault('getRfi');
    if (f) this.throwFor(f);
    return structuredClone(this.rfi);
  }

  async createUploadUrl(): Promise<{ id: string; url: string; expires_at: string }> {
    this.calls.push('createUploadUrl');
    const f = this.fault('createUploadUrl');
    if (f) this.throwFor(f);
    const id = `doc_${++this.seq}`;
    return {
      id,
      url: `http://bank.test/uploads/${id}`,
      expires_at: new Date(Date.now() + 900_000).toISOString(),
    };
  }

  async uploadDocument(
    url: string,
    file: string | UploadSource,
    _ct: string,
    o: { onProgress?(sent: number, total: number): void },
  ): Promise<unknown> {
    this.calls.push('uploadDocument');
    const f = this.fault('uploadDocument');
    if (f) this.throwFor(f);
    const parts: Buffer[] = [];
    // Copied: a source may read the next chunk into the buffer of the one before.
    for await (const p of (typeof file === 'string' ? pathSource(file) : file).open())
      parts.push(Buffer.from(p));
    const bytes = Buffer.concat(parts);
    o.onProgress?.(Math.floor(bytes.length / 2), bytes.length);
    o.onProgress?.(bytes.length, bytes.length);
    this.uploads.set(url.split('/').pop() ?? url, bytes.toString('latin1'));
    // The receipt names the sha256 of the bytes received (of other bytes: damaged on the way).
    const received = this.damaged > 0 ? Buffer.concat([bytes, Buffer.from([this.damaged--])]) : bytes;
    return { id: url, size_bytes: bytes.length, sha256: createHash('sha256').update(received).digest('hex') };
  }

  async submitRfiResponse(rfiId: string, questionId: string, body: RfiResponseBody): Promise<{ id: string }> {
    this.calls.push('submit');
    const f = this.fault('submit');
    if (f && f !== 'lose-answer') this.throwFor(f);
    const q = this.question;
    if (q.status !== 'action_required') this.throwFor('not-awaiting');
    const content = body[body.question_type] as { response_text: string; document_ids: string[] };
    const id = `resp_${++this.seq}`;
    q.responses.push({
      id,
      question_id: questionId,
      responder_type: 'customer',
      response: { [body.question_type]: content },
      created_at: new Date().toISOString(),
      updated_at: new Date().toISOString(),
    });
    q.status = 'pending_review';
    expect(rfiId).toBe(this.rfi.id);
    if (f === 'lose-answer') this.throwFor(f); // stored, but the answer never arrived
    return { id };
  }

  /** Staff closes the question (after a customer response) with a comment. */
  staffClose(text: string): void {
    const q = this.question;
    q.responses.push({
      id: `resp_${++this.seq}`,
      question_id: q.id,
      responder_type: 'staff',
      response: { [q.question_type]: { response_text: text, document_ids: [] } },
      created_at: new Date().toISOString(),
      updated_at: new Date().toISOString(),
    });
    q.status = 'closed';
  }

  customerResponses(): number {
    return this.question.responses.filter((r) => r.responder_type === 'customer').length;
  }
}

let dir: string;
let bank: FakeBank;
let changes: AnswerView[];
let progress: Array<{ sentBytes: number; totalBytes: number }>;
let sent: string[];
const opened: Outbox[] = [];

async function open(extra: Partial<OutboxOptions> = {}): Promise<Outbox> {
  const o = await openOutbox({
    file: path.join(dir, 'outbox.json'),
    bank,
    log: createLogger(memorySink(), 'debug'),
    fileSource: (ref) => pathSource(path.join(dir, `${ref}.bin`)),
    now: () => Date.now(),
    retry: { baseMs: 0, maxMs: 0 },
    autoRun: false,
    onChange: (v) => changes.push(v),
    onProgress: (p) => progress.push(p),
    onSent: (e) => sent.push(e.id),
    ...extra,
  });
  opened.push(o);
  return o;
}

const textAnswer: NewAnswer = {
  rfiId: 'rfi_1',
  questionId: 'q_1',
  questionType: 'transaction.purpose',
  text: 'Payment for freight services, invoice 4411.',
  documents: [],
};

async function docAnswer(): Promise<NewAnswer> {
  const pdf = Buffer.concat([Buffer.from('%PDF-1.4\n'), Buffer.alloc(4096, 7)]);
  await writeFile(path.join(dir, 'f_1.bin'), pdf);
  return {
    rfiId: 'rfi_1',
    questionId: 'q_1',
    questionType: 'transaction.supporting_documents',
    text: '',
    documents: [
      {
        ref: 'f_1',
        name: 'invoice.pdf',
        contentType: 'application/pdf',
        documentType: 'transaction_supporting_document',
        sizeBytes: pdf.length,
      },
    ],
  };
}

const states = () => changes.map((c) => c.state);

beforeEach(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'td-outbox-'));
  bank = new FakeBank();
  changes = [];
  progress = [];
  sent = [];
});

afterEach(async () => {
  for (const o of opened.splice(0)) await o.dispose();
  await rm(dir, { recursive: true, force: true });
});

describe('outbox state machine', () => {
  it('text answer: queued → sending → sent, one POST, persisted before it is reported', async () => {
    const o = await open();
    const a = await o.enqueue(textAnswer);
    expect(a.state).toBe('queued');
    const onDisk = JSON.parse(await readFile(path.join(dir, 'outbox.json'), 'utf8')) as {
      entries: Array<{ state: string }>;
    };
    expect(onDisk.entries.map((e) => e.state)).toEqual(['queued']);
    await o.runDue();
    expect(states()).toEqual(['queued', 'queued', 'sending', 'sent']);
    expect(bank.calls).toEqual(['getRfi', 'submit']);
    expect(bank.customerResponses()).toBe(1);
    expect(o.get(a.id)?.responseId).toBe(bank.question.responses[0]?.id);
    expect(sent).toEqual([a.id]);
  });

  it('document answer: fresh upload URL, streamed PUT with progress, then the POST with the document id', async () => {
    bank = new FakeBank('transaction.supporting_documents');
    const o = await open();
    await o.enqueue(await docAnswer());
    await o.runDue();
    expect(states()).toEqual(['queued', 'uploading', 'sending', 'sent']);
    expect(bank.calls).toEqual(['getRfi', 'createUploadUrl', 'uploadDocument', 'submit']);
    const resp = bank.question.responses[0];
    expect(resp?.response['transaction.supporting_documents']).toEqual({
      response_text: '',
      document_ids: ['doc_1'],
    });
    expect(bank.uploads.get('doc_1')?.startsWith('%PDF-')).toBe(true);
    expect(progress.at(-1)).toMatchObject({ sentBytes: 4105, totalBytes: 4105 });
    expect(progress.some((p) => p.sentBytes < 4105)).toBe(true);
  });

  it('an expired upload URL (403 UPLOAD_URL_EXPIRED) asks for a new URL and uploads again', async () => {
    bank = new FakeBank('transaction.supporting_documents');
    bank.faults.uploadDocument.push('expired');
    const o = await open();
    await o.enqueue(await docAnswer());
    await o.runDue();
    expect(bank.calls).toEqual([
      'getRfi',
      'createUploadUrl',
      'uploadDocument',
      'createUploadUrl',
      'uploadDocument',
      'submit',
    ]);
    expect(states().at(-1)).toBe('sent');
    expect(bank.question.responses[0]?.response['transaction.supporting_documents']?.document_ids).toEqual([
      'doc_2',
    ]);
  });

  it('ambiguous failure after sending, response stored: verifying re-reads the RFI, finds ours, never resends', async () => {
    bank.faults.submit.push('lose-answer');
    const o = await open();
    const a = await o.enqueue(textAnswer);
    await o.runDue();
    expect(o.get(a.id)?.state).toBe('verifying');
    expect(o.get(a.id)?.lastError?.kind).toBe('offline');
    await o.runDue();
    expect(o.get(a.id)?.state).toBe('sent');
    expect(bank.calls.filter((c) => c === 'submit')).toHaveLength(1);
    expect(bank.customerResponses()).toBe(1);
    expect(states()).toEqual(['queued', 'queued', 'sending', 'verifying', 'sent']);
  });

  for (const [fault, what] of [
    ['server', '5xx'],
    ['in-flight', '409, something still in flight'],
  ] as const) {
    it(`ambiguous failure (${what}), response not stored: re-read shows it still awaits a response, so it is sent once`, async () => {
      bank.faults.submit.push(fault);
      const o = await open();
      const a = await o.enqueue(textAnswer);
      await o.runDue();
      expect(o.get(a.id)?.state).toBe('verifying');
      await o.runDue();
      expect(o.get(a.id)?.state).toBe('sent');
      expect(bank.calls).toEqual(['getRfi', 'submit', 'getRfi', 'submit']);
      expect(bank.customerResponses()).toBe(1);
    });
  }

  it('verifying while still offline stays verifying and retries later', async () => {
    bank.faults.submit.push('lose-answer');
    bank.faults.getRfi.push('offline');
    const o = await open();
    const a = await o.enqueue(textAnswer);
    await o.runDue(); // preflight offline → queued
    expect(o.get(a.id)?.state).toBe('queued');
    expect(o.get(a.id)?.lastError?.kind).toBe('offline');
    await o.runDue(); // POST answer lost → verifying
    expect(o.get(a.id)?.state).toBe('verifying');
    bank.faults.getRfi.push('offline');
    await o.runDue(); // re-read offline → still verifying
    expect(o.get(a.id)?.state).toBe('verifying');
    await o.runDue();
    expect(o.get(a.id)?.state).toBe('sent');
    expect(bank.customerResponses()).toBe(1);
  });

  it('question no longer awaiting a response before sending: conflict with what changed, nothing sent', async () => {
    bank.question.status = 'pending_review';
    bank.staffClose('Closed: the payment was returned.');
    const o = await open();
    const a = await o.enqueue(textAnswer);
    await o.runDue();
    const e = o.get(a.id);
    expect(e?.state).toBe('conflict');
    expect(e?.conflict).toMatchObject({
      questionStatus: 'closed',
      latestStaffResponse: 'Closed: the payment was returned.',
    });
    expect(bank.calls).toEqual(['getRfi']);
    expect(sent).toEqual([]);
  });

  it('422 QUESTION_NOT_AWAITING_RESPONSE on the POST: conflict', async () => {
    bank.faults.submit.push('not-awaiting');
    const o = await open();
    const a = await o.enqueue(textAnswer);
    await o.runDue();
    expect(o.get(a.id)?.state).toBe('conflict');
    expect(o.get(a.id)?.lastError?.reason).toBe('QUESTION_NOT_AWAITING_RESPONSE');
  });

  it('offline before sending: back to queued with the reason and a next attempt; sent once online', async () => {
    bank.faults.getRfi.push('offline');
    const o = await open({ retry: { baseMs: 60_000, maxMs: 60_000 } });
    const a = await o.enqueue(textAnswer);
    await o.runDue();
    const e = o.list()[0];
    expect(e?.state).toBe('queued');
    expect(e?.lastError?.kind).toBe('offline');
    expect(Date.parse(e?.nextAttemptAt ?? '')).toBeGreaterThan(Date.now() + 20_000);
    await o.runDue(); // not due yet: nothing happens
    expect(bank.calls).toEqual(['getRfi']);
    o.wake(); // back online
    await o.runDue();
    expect(o.get(a.id)?.state).toBe('sent');
  });

  it('429 waits and runs again', async () => {
    bank.faults.submit.push('rate-limited');
    const o = await open();
    const a = await o.enqueue(textAnswer);
    await o.runDue();
    expect(o.get(a.id)?.state).toBe('queued');
    await o.runDue();
    expect(o.get(a.id)?.state).toBe('sent');
  });

  it('a refusal (400) fails with why; retry runs it again; dismiss removes only finished answers', async () => {
    bank.faults.submit.push('invalid');
    const o = await open();
    const a = await o.enqueue(textAnswer);
    await expect(o.dismiss(a.id)).rejects.toThrow(/still being sent/);
    await o.runDue();
    expect(o.get(a.id)).toMatchObject({ state: 'failed', lastError: { kind: 'invalid' } });
    await o.runDue(); // failed answers do not run by themselves
    expect(bank.calls.filter((c) => c === 'submit')).toHaveLength(1);
    expect((await o.retry(a.id)).state).toBe('queued');
    await o.runDue();
    expect(o.get(a.id)?.state).toBe('sent');
    await o.dismiss(a.id);
    expect(o.list()).toEqual([]);
  });

  it('one active answer per question', async () => {
    const o = await open();
    await o.enqueue(textAnswer);
    await expect(o.enqueue(textAnswer)).rejects.toThrow(/already on its way/);
  });
});

describe('an upload checked against the bank’s receipt', () => {
  const sha = (b: Buffer): string => createHash('sha256').update(b).digest('hex');
  const uploadLines = (lines: Array<{ operation: string; outcome: string; detail: string }>) =>
    lines.filter((l) => l.operation === 'rfi.upload').map((l) => `${l.outcome}: ${l.detail}`);

  it('a file whose sha256 is known is sent without hashing it again, and the receipt confirms it', async () => {
    bank = new FakeBank('transaction.supporting_documents');
    const answer = await docAnswer();
    const file = path.join(dir, 'f_1.bin');
    const bytes = await readFile(file);
    const s = await stat(file);
    const source = pathSource(file, async () => ({ sha256: sha(bytes), size: s.size, mtimeMs: s.mtimeMs }));
    const lines: Array<{ operation: string; outcome: string; detail: string }> = [];
    const o = await open({ fileSource: () => source, audit: async (l) => void lines.push(l) });
    const a = await o.enqueue(answer);
    await o.runDue();
    expect(o.get(a.id)?.state).toBe('sent');
    expect(bank.calls.filter((c) => c === 'uploadDocument')).toHaveLength(1);
    // The stream the bank read was not hashed on the way out.
    expect(source.sentSha256?.()).toBeNull();
    expect(uploadLines(lines)).toEqual([
      expect.stringMatching(new RegExp(`^succeeded: sha256 ${sha(bytes)};`)),
    ]);
  });

  it('a receipt that differs from the sha256 the file had when added sends it again, hashed as it goes', async () => {
    bank = new FakeBank('transaction.supporting_documents');
    const answer = await docAnswer();
    const file = path.join(dir, 'f_1.bin');
    const s = await stat(file);
    // The file was changed on disk keeping its size and time: the sha256 taken when it was added is stale.
    const stale = sha(Buffer.from('the bytes it had when it was added'));
    const source = pathSource(file, async () => ({ sha256: stale, size: s.size, mtimeMs: s.mtimeMs }));
    const lines: Array<{ operation: string; outcome: string; detail: string }> = [];
    const o = await open({ fileSource: () => source, audit: async (l) => void lines.push(l) });
    const a = await o.enqueue(answer);
    await o.runDue();
    expect(o.get(a.id)?.state).toBe('sent');
    expect(bank.calls.filter((c) => c === 'uploadDocument')).toHaveLength(2);
    const now = sha(await readFile(file));
    expect(source.sentSha256?.()).toBe(now);
    const audited = uploadLines(lines);
    expect(audited).toHaveLength(2);
    expect(audited[0]).toMatch(
      new RegExp(`^pending: the bank received sha256 ${now}, not the sha256 the file had`),
    );
    expect(audited[1]).toMatch(new RegExp(`^succeeded: sha256 ${now};`));
    expect(bank.customerResponses()).toBe(1);
  });

  it('a receipt that differs from the sha256 of the bytes sent answers nothing with them: the upload is tried again', async () => {
    bank = new FakeBank('transaction.supporting_documents');
    bank.damaged = 1;
    const lines: Array<{ operation: string; outcome: string; detail: string }> = [];
    const o = await open({ audit: async (l) => void lines.push(l) });
    const a = await o.enqueue(await docAnswer());
    await o.runDue();
    const v = o.get(a.id);
    expect(v?.state).toBe('queued');
    expect(v?.lastError?.message).toMatch(/The bank received other bytes of invoice\.pdf than were sent/);
    expect(bank.calls).not.toContain('submit');
    expect(uploadLines(lines)).toEqual([
      expect.stringMatching(/^pending: invalid: The bank received other bytes/),
    ]);
    // Received whole the next time: answered once.
    await o.runDue();
    expect(o.get(a.id)?.state).toBe('sent');
    expect(bank.customerResponses()).toBe(1);
    expect(uploadLines(lines).at(-1)).toMatch(/^succeeded: sha256 [0-9a-f]{64};/);
  });
});

describe('outbox restart recovery', () => {
  it('an answer persisted as "sending" (crash mid-POST) is verified after restart, not resent', async () => {
    bank.faults.submit.push('lose-answer');
    const o1 = await open();
    const a = await o1.enqueue(textAnswer);
    await o1.runDue();
    await o1.dispose();
    // Simulate the crash right after the write-ahead: the file says "sending".
    const file = path.join(dir, 'outbox.json');
    const raw = JSON.parse(await readFile(file, 'utf8')) as { entries: Array<{ state: string }> };
    for (const e of raw.entries) e.state = 'sending';
    await writeFile(file, JSON.stringify(raw));
    bank.calls = [];
    const o2 = await open();
    expect(o2.get(a.id)?.state).toBe('verifying');
    await o2.runDue();
    expect(o2.get(a.id)?.state).toBe('sent');
    expect(bank.calls).toEqual(['getRfi']);
    expect(bank.customerResponses()).toBe(1);
  });

  it('an answer persisted mid-upload is queued again and completes the upload after restart', async () => {
    bank = new FakeBank('transaction.supporting_documents');
    bank.faults.uploadDocument.push('offline');
    const o1 = await open();
    const a = await o1.enqueue(await docAnswer());
    await o1.runDue();
    expect(o1.get(a.id)?.state).toBe('queued');
    await o1.dispose();
    const file = path.join(dir, 'outbox.json');
    const raw = JSON.parse(await readFile(file, 'utf8')) as { entries: Array<{ state: string }> };
    for (const e of raw.entries) e.state = 'uploading';
    await writeFile(file, JSON.stringify(raw));
    const o2 = await open();
    expect(o2.get(a.id)?.state).toBe('queued');
    await o2.runDue();
    expect(o2.get(a.id)?.state).toBe('sent');
    // The URL of the first attempt was still valid: no new one was asked for.
    expect(bank.calls.filter((c) => c === 'createUploadUrl')).toHaveLength(1);
  });

  it('an unreadable outbox file is moved aside, not silently reset', async () => {
    await writeFile(path.join(dir, 'outbox.json'), '{"version":1,"entries":[{"torn');
    const o = await open();
    expect(o.list()).toEqual([]);
    expect((await readdir(dir)).some((f) => f.startsWith('outbox.corrupt-'))).toBe(true);
  });

  it('runs by itself on its timer (autoRun)', async () => {
    const o = await open({ autoRun: true });
    const a = await o.enqueue(textAnswer);
    await expect.poll(() => o.get(a.id)?.state, { timeout: 5000 }).toBe('sent');
  });
});

describe('findOwnResponse', () => {
  it('matches a new customer response with our text and documents only', () => {
    const q = bank.question;
    q.responses.push(
      {
        id: 'old',
        question_id: 'q_1',
        responder_type: 'customer',
        response: { 'transaction.purpose': { response_text: 'same', document_ids: [] } },
        created_at: '2026-11-01T00:00:00Z',
        updated_at: '2026-11-01T00:00:00Z',
      },
      {
        id: 'other',
        question_id: 'q_1',
        responder_type: 'customer',
        response: { 'transaction.purpose': { response_text: 'different', document_ids: [] } },
        created_at: '2026-11-01T00:00:00Z',
        updated_at: '2026-11-01T00:00:00Z',
      },
    );
    const entry = {
      text: 'same',
      documents: [],
      knownResponseIds: ['old'],
    } as unknown as Parameters<typeof findOwnResponse>[0];
    expect(findOwnResponse(entry, q)).toBeNull();
    q.responses.push({ ...q.responses[0]!, id: 'new' });
    expect(findOwnResponse(entry, q)).toBe('new');
  });
});

describe('outbox: a staged file that disappeared', () => {
  it('fails with the file name only (never its path) and keeps the answer', async () => {
    bank = new FakeBank('transaction.supporting_documents');
    bank.uploadDocument = async (_url, file) => {
      const where = typeof file === 'string' ? file : '/home/analyst/data/rfi-answers/staging/f_1.bin';
      throw new AppFailure({ kind: 'local', message: `The file ${where} cannot be read.` });
    };
    const o = await open();
    const a = await o.enqueue(await docAnswer());
    await o.runDue();
    const e = o.get(a.id);
    expect(e?.state).toBe('failed');
    expect(e?.lastError?.message).toBe(
      'invoice.pdf can no longer be read. Remove it and add the file again.',
    );
    expect(e?.lastError?.message).not.toContain(dir);
  });
});

describe('bound to its bank', () => {
  const bankA: BankScope = { profileId: 'p_a', origin: 'https://bank-a.example', legalEntityId: 'le_1' };

  it('waits while another profile, origin or legal entity is active; retry does not change that', async () => {
    let active: BankScope = bankA;
    const o = await open({ scope: () => active });
    const v = await o.enqueue(textAnswer);
    expect(v.bank).toEqual(bankA);
    for (const other of [
      { ...bankA, profileId: 'p_evil', origin: 'http://127.0.0.1:9' },
      { ...bankA, origin: 'https://elsewhere.example' },
      { ...bankA, profileId: 'p_other' },
      { ...bankA, legalEntityId: 'le_2' },
    ]) {
      active = other;
      await o.retry(v.id);
      o.wake();
      await o.runDue();
      expect(bank.calls).toEqual([]);
      expect(o.list()[0]).toMatchObject({ state: 'queued', waitingForBank: true });
    }
    // While it waits for its bank, it may be removed (that bank may be gone for good).
    const other = await open({ scope: () => active, file: path.join(dir, 'other.json') });
    active = bankA;
    const w = await other.enqueue(textAnswer);
    active = { ...bankA, origin: 'https://elsewhere.example' };
    await expect(other.dismiss(w.id)).resolves.toMatchObject({ id: w.id });
    expect(other.list()).toEqual([]);
    // Its own bank, the legal entity not known yet (session check pending): it goes.
    active = { ...bankA, legalEntityId: null };
    await o.runDue();
    expect(o.get(v.id)?.state).toBe('sent');
    expect(bank.customerResponses()).toBe(1);
  });

  it('a switch while an answer is on its way stops it before the next call; back on its bank it lands once', async () => {
    let active: BankScope = bankA;
    const o = await open({ scope: () => active });
    const v = await o.enqueue(textAnswer);
    const getRfi = bank.getRfi.bind(bank);
    bank.getRfi = async () => {
      const r = await getRfi();
      active = { ...bankA, profileId: 'p_evil', origin: 'http://127.0.0.1:9' };
      return r;
    };
    await o.runDue();
    expect(bank.calls.filter((c) => c.startsWith('submit'))).toEqual([]);
    expect(o.get(v.id)).toMatchObject({ state: 'queued', failures: 0 });
    bank.getRfi = getRfi;
    active = bankA;
    await o.runDue();
    expect(o.get(v.id)?.state).toBe('sent');
    expect(bank.customerResponses()).toBe(1);
  });

  it('a sent answer keeps ids, status and times on disk, not its text', async () => {
    const o = await open({ scope: () => bankA });
    const v = await o.enqueue(textAnswer);
    await o.runDue();
    expect(o.get(v.id)?.state).toBe('sent');
    await o.idle();
    const onDisk = await readFile(path.join(dir, 'outbox.json'), 'utf8');
    expect(onDisk).not.toContain(textAnswer.text);
    expect(onDisk).toContain(v.id);
    expect(JSON.parse(onDisk).entries[0]).toMatchObject({ state: 'sent', text: '', rfiId: 'rfi_1' });
    // The clean-up after sending still saw the answer as it was.
    expect(sent).toEqual([v.id]);
  });
});
