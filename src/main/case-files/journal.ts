/**
 * What the case file needs that the bank does not keep: the names and sha256 of the documents
 * uploaded from this workstation (the bank keeps only type and size), and the notifications and
 * webhook events seen for each RFI. One small state file (`case-files/journal.json`), sealed at
 * rest like the other stores; bounded (the newest 5,000 uploads, 200 events per RFI, 2,000 RFIs).
 */
import path from 'node:path';
import { z } from 'zod';
import type { AtRestCodec } from '../infra/at-rest';
import { createSerialQueue } from '../infra/durable-file';
import { stateFile } from '../infra/json-store';
import type { StateFileProblem } from '../infra/json-store';
import type { Logger } from '../infra/log';

const uploadSchema = z.object({
  documentId: z.string(),
  name: z.string(),
  sha256: z.string(),
  sizeBytes: z.number(),
  contentType: z.string(),
  documentType: z.string(),
  rfiId: z.string(),
  questionId: z.string(),
  answerId: z.string(),
  uploadedAt: z.string(),
});
export type JournalUpload = z.infer<typeof uploadSchema>;
const seenSchema = z.object({
  kind: z.enum(['webhook', 'notification']),
  at: z.string(),
  detail: z.string(),
});
export type JournalSeen = z.infer<typeof seenSchema>;
const format = {
  label: 'The case-file journal (names of uploaded documents, events seen)',
  consequence: 'Case files list the documents by id and type only, and the events from now on.',
  version: 1,
  schema: z.object({
    version: z.literal(1),
    uploads: z.array(uploadSchema),
    seen: z.record(z.string(), z.array(seenSchema)),
  }),
};

export interface CaseFileJournal {
  upload(u: JournalUpload): Promise<void>;
  seen(rfiId: string, e: Omit<JournalSeen, 'at'>): Promise<void>;
  uploadsOf(rfiId: string): JournalUpload[];
  uploadOf(documentId: string): JournalUpload | undefined;
  seenOf(rfiId: string): JournalSeen[];
  /** Resolves once every write asked for so far is on disk (services wait for it when they stop). */
  flush(): Promise<void>;
}

export async function openCaseFileJournal(o: {
  dataDir: string;
  log: Logger;
  codec?: AtRestCodec;
  report?(p: StateFileProblem): void;
}): Promise<CaseFileJournal> {
  const file = path.join(o.dataDir, 'case-files', 'journal.json');
  const store = stateFile(format, {
    log: o.log,
    ...(o.codec ? { codec: o.codec } : {}),
    report: (p) => o.report?.(p),
  });
  const loaded = await store.read(file);
  const uploads = new Map((loaded?.value.uploads ?? []).map((u) => [u.documentId, u] as const));
  const seen = new Map(Object.entries(loaded?.value.seen ?? {}));
  const serial = createSerialQueue();
  const persist = (): Promise<void> =>
    serial(() =>
      store.write(file, { version: 1, uploads: [...uploads.values()], seen: Object.fromEntries(seen) }),
    );
  if (loaded?.stale) await persist();
  // The keychain answered later in the run: a journal that waited for it is read now, and what
  // this run added meanwhile (kept in memory) is written with it.
  o.codec?.onSealed(async () => {
    const again = await serial(() => store.read(file));
    if (!again) return;
    for (const u of again.value.uploads) if (!uploads.has(u.documentId)) uploads.set(u.documentId, u);
    for (const [rfiId, list] of Object.entries(again.value.seen)) {
      seen.set(rfiId, [...list, ...(seen.get(rfiId) ?? [])].slice(-200));
    }
    await persist();
  });
  return {
    async upload(u) {
      uploads.set(u.documentId, u);
      while (uploads.size > 5000) uploads.delete(uploads.keys().next().value as string);
      await persist();
    },
    async seen(rfiId, e) {
      const list = seen.get(rfiId) ?? [];
      list.push({ ...e, at: new Date().toISOString() });
      seen.delete(rfiId);
      seen.set(rfiId, list.slice(-200));
      while (seen.size > 2000) seen.delete(seen.keys().next().value as string);
      await persist();
    },
    uploadsOf: (rfiId) => [...uploads.values()].filter((u) => u.rfiId === rfiId),
    uploadOf: (documentId) => uploads.get(documentId),
    seenOf: (rfiId) => [...(seen.get(rfiId) ?? [])],
    flush: () => serial(async () => undefined),
  };
}
