import { createServer } from 'node:http';
import type { Server } from 'node:http';
import { mkdir, readFile, readdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { unzipSync } from 'fflate';
import { afterEach, describe, expect, it } from 'vitest';
import { BankClient } from '../../src/main/bank/client';
import { createServerClock } from '../../src/main/bank/clock';
import { createLogger, memorySink } from '../../src/main/infra/log';
import { pdfDocument } from '../support/documents';
import { staffOf } from '../support/sandbox-staff';
import { startServices, tempDir } from '../support/services';
import type { TestServices } from '../support/services';

/**
 * A hostile bank answer (issue item 6): a document URL pointing at plain http on this machine, where
 * a local service answers with data of its own. It must never be fetched, so its answer can never
 * end up in a case file's ZIP.
 */

let t: TestServices | null = null;
let local: Server | null = null;
afterEach(async () => {
  await t?.close();
  t = null;
  await new Promise<void>((r) => (local ? local.close(() => r()) : r()));
  local = null;
});

const MARKER = 'LOCAL-SERVICE-SECRET-7f3a';

async function startLocalService(): Promise<{ url: string; hits: string[] }> {
  const hits: string[] = [];
  local = createServer((req, res) => {
    hits.push(req.url ?? '');
    res.writeHead(200, { 'content-type': 'application/pdf' });
    res.end(`%PDF-1.4\n${MARKER}\n%%EOF\n`);
  });
  await new Promise<void>((r) => local!.listen(0, '127.0.0.1', () => r()));
  const port = (local.address() as { port: number }).port;
  return { url: `http://127.0.0.1:${port}/internal/secret.pdf`, hits };
}

async function waitSent(s: TestServices, id: string): Promise<void> {
  await expect.poll(() => s.services.rfiAnswers.outbox.get(id)?.state, { timeout: 10_000 }).toBe('sent');
}

describe('document URLs from the bank', () => {
  it('plain http to a local service is refused before any request; the embedded sandbox’s own http is used', async () => {
    const svc = await startLocalService();
    const dir = await tempDir();
    t = await startServices({ dataDir: path.join(dir, 'data'), rfis: { autoStart: false } });
    await expect(t.services.bank.downloadDocument(svc.url)).rejects.toThrow(/not https/);
    expect(svc.hits).toEqual([]);

    // A real answer with a document, then a case file while the bank answers the local service's URL.
    const staff = staffOf(t.services);
    const le = t.services.sandbox!.fixtures.legal_entities[0]!;
    const rfi = await staff.createRfi({
      type: 'account',
      related_id: le.accounts[0]!.id,
      description: 'Hostile document URL probe',
      questions: [{ question_type: 'transaction.supporting_documents', question_text: 'Send the contract.' }],
    });
    const file = path.join(dir, 'contract.pdf');
    await writeFile(
      file,
      Buffer.concat([
        Buffer.from('%PDF-1.4\n1 0 obj\n<<>>\nendobj\n'),
        Buffer.alloc(2_000, 0x41),
        Buffer.from('\nxref\n0 1\n0000000000 65535 f \ntrailer\n<<>>\nstartxref\n9\n%%EOF\n'),
      ]),
    );
    const picked = await t.services.rfiAnswers.files.registerPicked(
      [file],
      'transaction_supporting_document',
    );
    const a = await t.services.handlers['answers.submit']({
      profileId: t.services.session.profile.id,
      rfiId: rfi.id,
      questionId: rfi.questions[0]!.id,
      questionType: 'transaction.supporting_documents',
      text: '',
      files: picked.files.map((f) => f.ref),
    });
    await waitSent(t, a.id);
    const real = t.services.bank.getDocument.bind(t.services.bank);
    t.services.bank.getDocument = async (id, o) => ({ ...(await real(id, o)), url: svc.url });

    const out = path.join(dir, 'out');
    await mkdir(out);
    t.platform.nextSaveAnswers.push(path.join(out, 'case.pdf'));
    const result = await t.services.handlers['caseFiles.export']({
      rfis: [{ profileId: t.services.session.profile.id, rfiId: rfi.id }],
      zip: true,
    });
    expect(result.documents).toBe(1);
    expect(svc.hits).toEqual([]);
    const zip = unzipSync(new Uint8Array(await readFile(path.join(out, 'case.zip'))));
    for (const [name, bytes] of Object.entries(zip)) {
      expect(Buffer.from(bytes).includes(MARKER), name).toBe(false);
    }
    for (const f of await readdir(out))
      expect((await readFile(path.join(out, f))).includes(MARKER), f).toBe(false);
  });

  it('an https bank’s upload URL in plain http to a local service is refused before any byte is sent', async () => {
    const svc = await startLocalService();
    const file = path.join(await tempDir(), 'contract.pdf');
    await writeFile(file, pdfDocument(2_000));
    const sink = memorySink();
    const bank = new BankClient({
      identity: async () => ({
        baseUrl: 'https://bank.example',
        token: 'https-bank-token-0123456789',
        tokenOrigin: 'https://bank.example',
      }),
      log: createLogger(sink, 'debug'),
      clock: createServerClock(),
      embeddedOrigin: () => null,
    });
    await expect(bank.uploadDocument(svc.url, file, 'application/pdf')).rejects.toMatchObject({
      kind: 'invalid_argument',
      field: 'url',
      message: expect.stringMatching(/not https; nothing was sent/),
    });
    expect(svc.hits).toEqual([]);
    expect(sink.records.some((r) => r.message.includes('plain-http upload URL'))).toBe(true);
  });
});
