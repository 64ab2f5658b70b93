import { createHash } from 'node:crypto';
import { readFile, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startSandbox } from '../../src/sandbox/index';
import type { RunningSandbox } from '../../src/sandbox/index';
import type { AuditEntry } from '../../src/main/bank/audit';
import { startFaultProxy } from '../support/fault-proxy';
import type { FaultProxy } from '../support/fault-proxy';
import { sandboxStaff } from '../support/sandbox-staff';
import { startServices, tempDir } from '../support/services';
import type { TestServices } from '../support/services';
import { pdfDocument, pngImage } from '../support/documents';

/**
 * Every write to the bank is in the audit log: the RFI answer outbox's uploads and responses
 * (real services, real sandbox over HTTP through the fault proxy, the sandbox's own state as the
 * judge), and changes of profile, token and approved bank address. Outcomes follow the failure
 * policy: pending when the bank's answer was lost, failed when it refused, succeeded once the
 * bank holds it.
 */

let sandbox: RunningSandbox;
let proxy: FaultProxy;
let t: TestServices;
let dir: string;

interface WireRfi {
  id: string;
  status: string;
  questions: Array<{
    id: string;
    question_type: string;
    status: string;
    responses: Array<{
      id: string;
      responder_type: string;
      response: Record<string, { response_text: string; document_ids: string[] }>;
    }>;
  }>;
}

async function bankGet(p: string): Promise<WireRfi> {
  const token = sandbox.fixtures.legal_entities[0]!.tokens.admin!;
  const r = await fetch(`${sandbox.url}${p}`, { headers: { authorization: `Bearer ${token}` } });
  return (await r.json()) as WireRfi;
}

async function newRfi(...questionTypes: string[]): Promise<WireRfi> {
  const rfi = await sandboxStaff(sandbox).createRfi({
    type: 'account',
    related_id: sandbox.fixtures.legal_entities[0]!.accounts[0]!.id,
    description: 'audit integration',
    questions: questionTypes.map((question_type) => ({ question_type, question_text: 'Please answer.' })),
  });
  return rfi as unknown as WireRfi;
}

async function waitFor(id: string, states: string[]): Promise<string> {
  for (let i = 0; i < 400; i++) {
    const s = t.services.rfiAnswers.outbox.get(id)?.state ?? 'missing';
    if (states.includes(s)) return s;
    await new Promise((r) => setTimeout(r, 25));
  }
  throw new Error(`answer ${id} never reached ${states.join('/')}`);
}

/** The audit log, oldest first. */
async function auditLines(): Promise<AuditEntry[]> {
  return (await t.services.audit.list({ limit: 1000 })).entries.reverse();
}

/** Signed upload URLs through the proxy too, so PUTs can be faulted. */
const uploadsThroughProxy = (req: { method: string; path: string }) =>
  req.method === 'POST' && req.path === '/v1/documents/upload-url'
    ? {
        kind: 'rewrite' as const,
        fn: (json: unknown) => ({
          ...(json as object),
          url: (json as { url: string }).url.replace(sandbox.url, proxy.url),
        }),
      }
    : undefined;

beforeEach(async () => {
  sandbox = await startSandbox({ visibilityDelayMs: { min: 0, max: 0 } });
  proxy = await startFaultProxy(sandbox.url);
  dir = await tempDir('td-audit-writes-');
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
  await t.stop();
  await proxy.close();
  await sandbox.close();
  // A cache refresh started by a landed answer may still be writing its last file.
  await rm(dir, { recursive: true, force: true, maxRetries: 5, retryDelay: 50 });
});

describe('RFI answers in the audit log', () => {
  it('a text answer and a document answer: one response line each, the upload with the bank’s sha256', async () => {
    const rfi = await newRfi('transaction.purpose', 'transaction.supporting_documents');
    const [textQ, docQ] = rfi.questions;
    const pdf = path.join(dir, 'invoice.pdf');
    await writeFile(pdf, pdfDocument(50_000, 0x42));
    const sha = createHash('sha256')
      .update(await readFile(pdf))
      .digest('hex');
    const text = await t.services.rfiAnswers.submit({
      rfiId: rfi.id,
      questionId: textQ!.id,
      questionType: 'transaction.purpose',
      text: 'Payment for freight under contract 42.',
      files: [],
    });
    expect(await waitFor(text.id, ['sent', 'failed', 'conflict'])).toBe('sent');
    const [file] = (
      await t.services.rfiAnswers.files.registerPicked([pdf], 'transaction_supporting_document')
    ).files;
    const doc = await t.services.rfiAnswers.submit({
      rfiId: rfi.id,
      questionId: docQ!.id,
      questionType: 'transaction.supporting_documents',
      text: '',
      files: [file!.ref],
    });
    expect(await waitFor(doc.id, ['sent', 'failed', 'conflict'])).toBe('sent');

    const bank = await bankGet(`/v1/rfis/${rfi.id}`);
    const bankText = bank.questions[0]!.responses.find((r) => r.responder_type === 'customer')!;
    const bankDoc = bank.questions[1]!.responses.find((r) => r.responder_type === 'customer')!;
    const documentId = bankDoc.response['transaction.supporting_documents']!.document_ids[0]!;
    const stored = await sandboxStaff(sandbox).getDocument(documentId);
    expect(stored.sha256).toBe(sha);

    const lines = await auditLines();
    const responds = lines.filter((l) => l.operation === 'rfi.respond');
    expect(responds.map((l) => [l.target, l.outcome])).toEqual([
      [rfi.id, 'succeeded'],
      [rfi.id, 'succeeded'],
    ]);
    expect(responds[0]!.detail).toContain(`question ${textQ!.id}`);
    expect(responds[0]!.detail).toContain(`answer ${text.id}`);
    expect(responds[0]!.detail).toContain(`response ${bankText.id}`);
    expect(responds[1]!.detail).toContain(`response ${bankDoc.id}`);
    expect(responds[1]!.detail).toContain(`${documentId} sha256 ${sha}`);
    const uploads = lines.filter((l) => l.operation === 'rfi.upload');
    expect(uploads).toHaveLength(1);
    expect(uploads[0]).toMatchObject({ target: documentId, outcome: 'succeeded' });
    expect(uploads[0]!.detail).toContain(`sha256 ${sha}`);
    expect(uploads[0]!.detail).toContain(`answer ${doc.id}`);
    // The audit log is not sealed: it names ids and hashes, never the answer's text or the file's name.
    const raw = await readFile(t.services.audit.file, 'utf8');
    expect(raw).not.toContain('freight');
    expect(raw).not.toContain('invoice.pdf');
    // Each line was also pushed to the Activity screen.
    const pushed = t.pushed
      .filter((m) => m.event === 'audit.recorded')
      .map((m) => (m.payload as AuditEntry).id);
    for (const l of [...responds, ...uploads]) expect(pushed).toContain(l.id);
    // The CSV export holds them too.
    const csv = path.join(dir, 'activity.csv');
    await t.services.audit.exportCsv(csv);
    const rows = (await readFile(csv, 'utf8')).split('\r\n');
    expect(rows.filter((r) => r.includes('"rfi.respond"') && r.includes('"succeeded"'))).toHaveLength(2);
    expect(rows.filter((r) => r.includes('"rfi.upload"') && r.includes(`"${documentId}"`))).toHaveLength(1);
  });

  it('the answer to the POST is lost: pending, then succeeded once the re-read finds it (sent once)', async () => {
    const rfi = await newRfi('transaction.purpose');
    let lost = 0;
    proxy.rules.push((req) =>
      req.method === 'POST' && req.path.endsWith('/responses') && lost++ === 0
        ? { kind: 'lose-answer' }
        : undefined,
    );
    const a = await t.services.rfiAnswers.submit({
      rfiId: rfi.id,
      questionId: rfi.questions[0]!.id,
      questionType: 'transaction.purpose',
      text: 'Client money for escrow.',
      files: [],
    });
    expect(await waitFor(a.id, ['sent', 'failed', 'conflict'])).toBe('sent');
    const bank = await bankGet(`/v1/rfis/${rfi.id}`);
    const ours = bank.questions[0]!.responses.filter((r) => r.responder_type === 'customer');
    expect(ours).toHaveLength(1);
    const responds = (await auditLines()).filter((l) => l.operation === 'rfi.respond');
    expect(responds.map((l) => l.outcome)).toEqual(['pending', 'succeeded']);
    expect(responds[0]!.detail).toContain(`answer ${a.id}`);
    expect(responds[1]!.detail).toContain(`response ${ours[0]!.id}`);
    expect(responds[1]!.detail).toContain('confirmed by re-reading the RFI');
  });

  it('the answer to an upload PUT is lost: pending; the document that lands is succeeded with the bank’s hash', async () => {
    const rfi = await newRfi('transaction.supporting_documents');
    const pdf = path.join(dir, 'statement.pdf');
    await writeFile(pdf, pdfDocument(80_000, 0x43));
    let puts = 0;
    proxy.rules.push(uploadsThroughProxy);
    proxy.rules.push((req) =>
      req.method === 'PUT' && req.path.startsWith('/uploads/') && puts++ === 0
        ? { kind: 'lose-answer' }
        : undefined,
    );
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
    const bank = await bankGet(`/v1/rfis/${rfi.id}`);
    const docId = bank.questions[0]!.responses.find((r) => r.responder_type === 'customer')!.response[
      'transaction.supporting_documents'
    ]!.document_ids[0]!;
    const stored = await sandboxStaff(sandbox).getDocument(docId);
    const uploads = (await auditLines()).filter((l) => l.operation === 'rfi.upload');
    expect(uploads[0]!.outcome).toBe('pending');
    const last = uploads[uploads.length - 1]!;
    expect(last).toMatchObject({ target: docId, outcome: 'succeeded' });
    expect(last.detail).toContain(`sha256 ${stored.sha256}`);
  });

  it('an expired upload URL is failed for that document id, and the new one succeeded', async () => {
    const rfi = await newRfi('transaction.supporting_documents');
    const png = path.join(dir, 'receipt.png');
    await writeFile(png, pngImage(1000, 1));
    let puts = 0;
    proxy.rules.push(uploadsThroughProxy);
    proxy.rules.push((req) =>
      req.method === 'PUT' && req.path.startsWith('/uploads/') && puts++ === 0
        ? {
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
          }
        : undefined,
    );
    const [file] = (
      await t.services.rfiAnswers.files.registerPicked([png], 'transaction_supporting_document')
    ).files;
    const a = await t.services.rfiAnswers.submit({
      rfiId: rfi.id,
      questionId: rfi.questions[0]!.id,
      questionType: 'transaction.supporting_documents',
      text: '',
      files: [file!.ref],
    });
    expect(await waitFor(a.id, ['sent', 'failed', 'conflict'])).toBe('sent');
    const uploads = (await auditLines()).filter((l) => l.operation === 'rfi.upload');
    expect(uploads.map((l) => l.outcome)).toEqual(['failed', 'succeeded']);
    expect(uploads[0]!.target).not.toBe(uploads[1]!.target);
    expect(uploads[0]!.detail).toContain('UPLOAD_URL_EXPIRED');
  });

  it('a refused response is failed, with the bank’s reason', async () => {
    const rfi = await newRfi('transaction.purpose');
    proxy.rules.push((req) =>
      req.method === 'POST' && req.path.endsWith('/responses')
        ? {
            kind: 'respond',
            status: 400,
            body: { error: { code: '400', status: 'INVALID_ARGUMENT', message: 'response_text too long' } },
          }
        : undefined,
    );
    const a = await t.services.rfiAnswers.submit({
      rfiId: rfi.id,
      questionId: rfi.questions[0]!.id,
      questionType: 'transaction.purpose',
      text: 'Refused answer.',
      files: [],
    });
    expect(await waitFor(a.id, ['sent', 'failed', 'conflict'])).toBe('failed');
    const responds = (await auditLines()).filter((l) => l.operation === 'rfi.respond');
    expect(responds).toHaveLength(1);
    expect(responds[0]).toMatchObject({ target: rfi.id, outcome: 'failed' });
    expect(responds[0]!.detail).toContain('response_text too long');
    const bank = await bankGet(`/v1/rfis/${rfi.id}`);
    expect(bank.questions[0]!.responses.filter((r) => r.responder_type === 'customer')).toHaveLength(0);
  });

  it('a response interrupted by a restart is pending at start, then succeeded once verified', async () => {
    const rfi = await newRfi('transaction.purpose');
    // The POST reaches the bank but its answer never comes back while the app stops.
    proxy.rules.push((req) =>
      req.method === 'POST' && req.path.endsWith('/responses') ? { kind: 'lose-answer' } : undefined,
    );
    const a = await t.services.rfiAnswers.submit({
      rfiId: rfi.id,
      questionId: rfi.questions[0]!.id,
      questionType: 'transaction.purpose',
      text: 'Sent before the restart.',
      files: [],
    });
    await waitFor(a.id, ['verifying']);
    await t.stop();
    proxy.rules.length = 0;
    t = await startServices({
      dataDir: t.dataDir,
      environment: {
        kind: 'remote',
        baseUrl: proxy.url,
        name: 'Proxied sandbox',
        token: sandbox.fixtures.legal_entities[0]!.tokens.admin!,
      },
      rfiAnswers: { retry: { baseMs: 50, maxMs: 200 } },
      rfis: { autoStart: false },
    });
    expect(await waitFor(a.id, ['sent', 'failed', 'conflict'])).toBe('sent');
    const responds = (await auditLines()).filter((l) => l.operation === 'rfi.respond');
    expect(responds.map((l) => l.outcome)).toEqual(['pending', 'succeeded']);
    const bank = await bankGet(`/v1/rfis/${rfi.id}`);
    expect(bank.questions[0]!.responses.filter((r) => r.responder_type === 'customer')).toHaveLength(1);
  });
});

describe('profile, token and bank address changes in the audit log', () => {
  it('adding (approved and declined), renaming, activating and removing a profile; setting and deleting a token', async () => {
    const h = t.services.handlers;
    t.platform.nextConfirmAnswers.push(false);
    await expect(
      h['settings.addProfile']({ name: 'Declined', baseUrl: 'https://declined.example' }),
    ).rejects.toThrow(/not approved/);
    t.platform.nextConfirmAnswers.push(true);
    const view = await h['settings.addProfile']({ name: 'Second bank', baseUrl: 'https://second.example' });
    const added = view.profiles.find((p) => p.name === 'Second bank')!;
    await h['settings.updateProfile']({ profileId: added.id, name: 'Second bank (EU)' });
    await h['vault.setToken']({ profileId: added.id, token: 'tok_second_bank_0123456789' });
    await h['vault.deleteToken']({ profileId: added.id });
    t.platform.nextConfirmAnswers.push(true); // the analyst confirms the removal in main's dialog
    await h['settings.removeProfile']({ profileId: added.id });

    const lines = (await auditLines()).filter((l) => l.operation !== 'rfi.respond');
    const summary = lines.map((l) => [l.operation, l.target, l.outcome]);
    expect(summary).toContainEqual(['bank_origin.approve', 'https://declined.example', 'failed']);
    expect(summary).toContainEqual(['profile.add', 'https://declined.example', 'failed']);
    expect(summary).toContainEqual(['bank_origin.approve', 'https://second.example', 'succeeded']);
    expect(summary).toContainEqual(['profile.add', 'https://second.example', 'succeeded']);
    expect(summary).toContainEqual(['profile.rename', added.id, 'succeeded']);
    expect(summary).toContainEqual(['token.set', added.id, 'succeeded']);
    expect(summary).toContainEqual(['token.delete', added.id, 'succeeded']);
    expect(summary).toContainEqual(['profile.remove', added.id, 'succeeded']);
    // Its address approval went with it.
    expect(summary).toContainEqual(['bank_origin.revoke', 'https://second.example', 'succeeded']);
    // Main's own approval of the environment it was started with is there too.
    expect(summary).toContainEqual(['bank_origin.approve', new URL(proxy.url).origin, 'succeeded']);
    // No token in the audit log.
    expect(await readFile(t.services.audit.file, 'utf8')).not.toContain('tok_second_bank');
  });
});
