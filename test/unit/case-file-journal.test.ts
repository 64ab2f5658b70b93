import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { openCaseFileJournal } from '../../src/main/case-files/journal';
import type { JournalUpload } from '../../src/main/case-files/journal';
import { createLogger, memorySink } from '../../src/main/infra/log';

/**
 * The case-file journal keeps what it records under the profile it belongs to: two banks can use
 * the same RFI and document ids, and a case file of one must never list the other's uploads or
 * events.
 */
const dirs: string[] = [];
afterEach(async () => {
  for (const d of dirs.splice(0)) await rm(d, { recursive: true, force: true });
});
const log = createLogger(memorySink());
/** A data folder with its case-files folder (the app makes it at start). */
const tempDir = async (): Promise<string> => {
  const d = await mkdtemp(path.join(os.tmpdir(), 'journal-'));
  dirs.push(d);
  await mkdir(path.join(d, 'case-files'), { mode: 0o700 });
  return d;
};
const upload = (profileId: string, name: string): JournalUpload => ({
  profileId,
  documentId: 'doc_1',
  name,
  sha256: 'a'.repeat(64),
  sizeBytes: 10,
  contentType: 'application/pdf',
  documentType: 'invoice',
  rfiId: 'rfi_1',
  questionId: 'q_1',
  answerId: 'a_1',
  uploadedAt: '2026-11-27T10:00:00.000Z',
});

describe('case-file journal', () => {
  it('keeps uploads and events of two banks with the same ids apart, across a restart', async () => {
    const dataDir = await tempDir();
    const j = await openCaseFileJournal({ dataDir, log });
    await j.upload(upload('alder', 'alder-invoice.pdf'));
    await j.upload(upload('birch', 'birch-invoice.pdf'));
    await j.seen('alder', 'rfi_1', { kind: 'webhook', detail: 'alder event' });
    await j.seen('birch', 'rfi_1', { kind: 'notification', detail: 'birch notification' });
    await j.flush();

    const again = await openCaseFileJournal({ dataDir, log });
    expect(again.uploadOf('alder', 'doc_1')?.name).toBe('alder-invoice.pdf');
    expect(again.uploadOf('birch', 'doc_1')?.name).toBe('birch-invoice.pdf');
    expect(again.uploadsOf('birch', 'rfi_1').map((u) => u.name)).toEqual(['birch-invoice.pdf']);
    expect(again.seenOf('alder', 'rfi_1').map((s) => s.detail)).toEqual(['alder event']);
    expect(again.seenOf('birch', 'rfi_1').map((s) => s.detail)).toEqual(['birch notification']);
    expect(again.uploadOf('cedar', 'doc_1')).toBeUndefined();
    expect(again.seenOf('cedar', 'rfi_1')).toEqual([]);
  });

  it('reads a journal written before owners were recorded, and still shows its entries for that id', async () => {
    const dataDir = await tempDir();
    const file = path.join(dataDir, 'case-files', 'journal.json');
    const { profileId: _owner, ...old } = upload('x', 'old-invoice.pdf');
    await writeFile(
      file,
      JSON.stringify({
        version: 1,
        uploads: [old],
        seen: { rfi_1: [{ kind: 'webhook', at: '2026-11-26T09:00:00.000Z', detail: 'old event' }] },
      }),
    );
    const j = await openCaseFileJournal({ dataDir, log });
    expect(j.uploadOf('alder', 'doc_1')?.name).toBe('old-invoice.pdf');
    await j.seen('alder', 'rfi_1', { kind: 'notification', detail: 'new event' });
    expect(j.seenOf('alder', 'rfi_1').map((s) => s.detail)).toEqual(['old event', 'new event']);
    await j.flush();
    // Rewritten in the current format: the old entries with no owner, the new one with its owner.
    const stored = JSON.parse(await readFile(file, 'utf8')) as {
      version: number;
      seen: Array<{ profileId: string }>;
    };
    expect(stored.version).toBe(2);
    expect(stored.seen.map((s) => s.profileId).sort()).toEqual(['', 'alder']);
  });
});
