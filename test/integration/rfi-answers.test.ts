import { rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startSandbox } from '../../src/sandbox/index';
import type { RunningSandbox } from '../../src/sandbox/index';
import { startFaultProxy } from '../support/fault-proxy';
import type { FaultProxy } from '../support/fault-proxy';
import { startServices, tempDir } from '../support/services';
import type { TestServices } from '../support/services';
import { pdfDocument } from '../support/documents';

/**
 * The answer outbox inside the real services, over real HTTP to the sandbox through a fault proxy:
 * a lost answer to the POST (the bank stored it) and an expired signed URL, with the sandbox's
 * own state as the judge.
 */

let sandbox: RunningSandbox;
let proxy: FaultProxy;
let t: TestServices;
let dir: string;

interface WireRfi {
  id: string;
  status: string;
  questions: Array<{ id: string; status: string; responses: Array<{ responder_type: string }> }>;
}

async function bankGet(p: string): Promise<WireRfi> {
  const token = sandbox.fixtures.legal_entities[0]!.tokens.admin!;
  const r = await fetch(`${sandbox.url}${p}`, { headers: { authorization: `Bearer ${token}` } });
  return (await r.json()) as WireRfi;
}

async function newRfi(questionType: string): Promise<WireRfi> {
  const r = await fetch(`${sandbox.url}/v1/sandbox/rfis`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...sandbox.controlHeaders() },
    body: JSON.stringify({
      type: 'account',
      related_id: sandbox.fixtures.legal_entities[0]!.accounts[0]!.id,
      description: 'outbox integration',
      questions: [{ question_type: questionType, question_text: 'Please answer.' }],
    }),
  });
  return (await r.json()) as WireRfi;
}

const customer = (rfi: WireRfi) =>
  rfi.questions[0]!.responses.filter((r) => r.responder_type === 'customer').length;

async function waitFor(id: string, states: string[]): Promise<string> {
  for (let i = 0; i < 400; i++) {
    const s = t.services.rfiAnswers.outbox.get(id)?.state ?? 'missing';
    if (states.includes(s)) return s;
    await new Promise((r) => setTimeout(r, 25));
  }
  throw new Error(`answer ${id} never reached ${states.join('/')}`);
}

beforeEach(async () => {
  sandbox = await startSandbox({ visibilityDelayMs: { min: 0, max: 0 } });
  proxy = await startFaultProxy(sandbox.url);
  dir = await tempDir('td-answers-');
  t = await startServices({
    dataDir: path.join(dir, 'data'),
    environment: {
      kind: 'remote',
      baseUrl: proxy.url,
      name: 'Proxied sandbox',
      token: sandbox.fixtures.legal_entities[0]!.tokens.admin!,
    },
    rfiAnswers: { retry: { baseMs: 50, maxMs: 200 } },
    rfis: { autoStart: false },
  });
});

afterEach(async () => {
  await t.close();
  await proxy.close();
  await sandbox.close();
  await rm(dir, { recursive: true, force: true });
});

describe('answer outbox over real HTTP', () => {
  it('the answer to the POST is lost after the bank stored it: re-read, found, not sent twice', async () => {
    const rfi = await newRfi('transaction.purpose');
    let lost = 0;
    proxy.rules.push((req) => {
      if (req.method === 'POST' && req.path.endsWith('/responses') && lost === 0) {
        lost++;
        return { kind: 'lose-answer' };
      }
      return undefined;
    });
    const a = await t.services.rfiAnswers.submit({
      rfiId: rfi.id,
      questionId: rfi.questions[0]!.id,
      questionType: 'transaction.purpose',
      text: 'Client money for freight escrow.',
      files: [],
    });
    expect(await waitFor(a.id, ['sent', 'failed', 'conflict'])).toBe('sent');
    const posts = proxy.seen.filter((s) => s.method === 'POST' && s.path.endsWith('/responses'));
    expect(posts).toHaveLength(1);
    const after = await bankGet(`/v1/rfis/${rfi.id}`);
    expect(customer(after)).toBe(1);
    expect(after.status).toBe('pending_review');
    const states = t.pushed
      .filter((m) => m.event === 'answers.changed')
      .map((m) => (m.payload as { state: string }).state);
    expect(states).toContain('verifying');
    // The draft of a landed answer is gone, and the RFI cache re-read the RFI.
    await expect.poll(() => t.services.rfiAnswers.getDrafts(rfi.id)).toEqual([]);
    await expect
      .poll(async () => (await t.services.rfis.get(rfi.id, false)).rfi.status)
      .toBe('pending_review');
  });

  it('an expired signed URL (403 UPLOAD_URL_EXPIRED) gets a new URL and the document lands once', async () => {
    const rfi = await newRfi('transaction.supporting_documents');
    const pdf = path.join(dir, 'contract.pdf');
    await writeFile(pdf, pdfDocument(200_000, 0x41));
    let puts = 0;
    proxy.rules.push((req) => {
      // Signed URLs go through the proxy too, so the first PUT can be answered "expired".
      if (req.method === 'POST' && req.path === '/v1/documents/upload-url') {
        return {
          kind: 'rewrite',
          fn: (json) => ({
            ...(json as object),
            url: (json as { url: string }).url.replace(sandbox.url, proxy.url),
          }),
        };
      }
      if (req.method === 'PUT' && req.path.startsWith('/uploads/') && puts++ === 0) {
        return {
          kind: 'respond',
          status: 403,
          body: {
            error: {
              code: '403',
              status: 'PERMISSION_DENIED',
              message: 'expired',
              reason: 'UPLOAD_URL_EXPIRED',
            },
          },
        };
      }
      return undefined;
    });
    const [file] = (
      await t.services.rfiAnswers.files.registerPicked([pdf], 'transaction_supporting_document')
    ).files;
    const a = await t.services.rfiAnswers.submit({
      rfiId: rfi.id,
      questionId: rfi.questions[0]!.id,
      questionType: 'transaction.supporting_documents',
      text: '',
      files: [file!.ref],
    });
    expect(await waitFor(a.id, ['sent', 'failed', 'conflict'])).toBe('sent');
    expect(proxy.seen.filter((s) => s.path === '/v1/documents/upload-url')).toHaveLength(2);
    expect(proxy.seen.filter((s) => s.method === 'PUT')).toHaveLength(2);
    const progress = t.pushed.filter((m) => m.event === 'answers.progress');
    expect(progress.length).toBeGreaterThan(0);
    expect(customer(await bankGet(`/v1/rfis/${rfi.id}`))).toBe(1);
    await expect
      .poll(async () => (await t.services.rfis.get(rfi.id, false)).rfi.status)
      .toBe('pending_review');
  });

  it('an answer holds the busy guard from its re-read through the upload to the send (no update restart meanwhile)', async () => {
    const rfi = await newRfi('transaction.supporting_documents');
    const pdf = path.join(dir, 'invoice.pdf');
    await writeFile(pdf, pdfDocument(50_000, 0x41));
    const busyAt: Array<{ step: string; busy: boolean; reasons: string[] }> = [];
    proxy.rules.push((req) => {
      if (req.method === 'POST' && req.path === '/v1/documents/upload-url') {
        busyAt.push({
          step: 'upload-url',
          busy: t.services.busy.isBusy(),
          reasons: t.services.busy.reasons(),
        });
        return {
          kind: 'rewrite',
          fn: (json) => ({
            ...(json as object),
            url: (json as { url: string }).url.replace(sandbox.url, proxy.url),
          }),
        };
      }
      if (req.method === 'PUT' || (req.method === 'POST' && req.path.endsWith('/responses')))
        busyAt.push({ step: req.method, busy: t.services.busy.isBusy(), reasons: t.services.busy.reasons() });
      return undefined;
    });
    expect(t.services.busy.isBusy()).toBe(false);
    const [file] = (
      await t.services.rfiAnswers.files.registerPicked([pdf], 'transaction_supporting_document')
    ).files;
    const a = await t.services.rfiAnswers.submit({
      rfiId: rfi.id,
      questionId: rfi.questions[0]!.id,
      questionType: 'transaction.supporting_documents',
      text: '',
      files: [file!.ref],
    });
    expect(await waitFor(a.id, ['sent', 'failed', 'conflict'])).toBe('sent');
    expect(busyAt.map((b) => b.step)).toEqual(['upload-url', 'PUT', 'POST']);
    expect(busyAt.every((b) => b.busy)).toBe(true);
    expect(busyAt.find((b) => b.step === 'PUT')!.reasons).toEqual(
      expect.arrayContaining(['an answer is being sent', 'an answer document is uploading']),
    );
    await expect.poll(() => t.services.busy.isBusy()).toBe(false);
    // The cache re-reads the RFI once the answer landed (let it finish before the folder goes).
    await expect
      .poll(async () => (await t.services.rfis.get(rfi.id, false)).rfi.status)
      .toBe('pending_review');
  });

  it('refuses what the bank would refuse before anything is sent', async () => {
    const rfi = await newRfi('transaction.supporting_documents');
    await expect(
      t.services.rfiAnswers.submit({
        rfiId: rfi.id,
        questionId: rfi.questions[0]!.id,
        questionType: 'transaction.supporting_documents',
        text: '',
        files: [],
      }),
    ).rejects.toThrow(/at least one document/);
    await expect(
      t.services.rfiAnswers.submit({
        rfiId: rfi.id,
        questionId: rfi.questions[0]!.id,
        questionType: 'transaction.supporting_documents',
        text: '',
        files: ['f_0123456789abcdef01234567'],
      }),
    ).rejects.toThrow(/not issued by this app/);
    expect(proxy.seen.filter((s) => s.method !== 'GET')).toEqual([]);
  });
});
