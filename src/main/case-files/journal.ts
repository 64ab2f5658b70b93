/**
 * What the case file needs that the bank does not keep: the names and sha256 of the documents
 * uploaded from this workstation (the bank keeps only type and size), and the notifications and
 * webhook events seen for each RFI. One small state file (`case-files/journal.json`), sealed at
 * rest like the other stores; bounded (the newest 5,000 uploads, 200 events per RFI, 2,000 RFIs).
 *
 * Every entry carries the profile it belongs to: bank-side ids are unique only within one bank, so
 * an upload or an event is found by (profile, id), never by the id alone. Entries written before
 * the journal recorded owners (format 1) carry none (`profileId: ''`) and are shown for the RFI of
 * that id whoever owns it, as they were.
 */
import path from 'node:path';
import { z } from 'zod';
import type { AtRestCodec } from '../infra/at-rest';
import { createSerialQueue } from '../infra/durable-file';
import { stateFile } from '../infra/json-store';
import type { StateFileProblem } from '../infra/json-store';
import type { Logger } from '../infra/log';

const uploadSchema = z.object({
  profileId: z.string(),
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
const seenListSchema = z.object({ profileId: z.string(), rfiId: z.string(), events: z.array(seenSchema) });
/** An owner no entry of format 1 recorded. */
const UNKNOWN_OWNER = '';
const format = {
  label: 'The case-file journal (names of uploaded documents, events seen)',
  consequence: 'Case files list the documents by id and type only, and the events from now on.',
  version: 2,
  schema: z.object({
    version: z.literal(2),
    uploads: z.array(uploadSchema),
    seen: z.array(seenListSchema),
  }),
  migrations: {
    // Format 1 kept uploads and events by bank-side id only: their owner is not known.
    1: (c: Record<string, unknown>) => ({
      uploads: Array.isArray(c['uploads'])
        ? (c['uploads'] as Array<Record<string, unknown>>).map((u) => ({ ...u, profileId: UNKNOWN_OWNER }))
        : [],
      seen: Object.entries((c['seen'] ?? {}) as Record<string, unknown>).map(([rfiId, events]) => ({
        profileId: UNKNOWN_OWNER,
        rfiId,
        events,
      })),
    }),
  },
};

const keyOf = (profileId: string, id: string): string => `${profileId}\u0000${id}`;

export interface CaseFileJournal {
  upload(u: JournalUpload): Promise<void>;
  seen(profileId: string, rfiId: string, e: Omit<JournalSeen, 'at'>): Promise<void>;
  /** The documents uploaded for the profile's RFI (and those of format 1 for that id). */
  uploadsOf(profileId: string, rfiId: string): JournalUpload[];
  uploadOf(profileId: string, documentId: string): JournalUpload | undefined;
  seenOf(profileId: string, rfiId: string): JournalSeen[];
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
  const uploads = new Map(
    (loaded?.value.uploads ?? []).map((u) => [keyOf(u.profileId, u.documentId), u] as const),
  );
  const seen = new Map((loaded?.value.seen ?? []).map((l) => [keyOf(l.profileId, l.rfiId), l] as const));
  const serial = createSerialQueue();
  const persist = (): Promise<void> =>
    serial(() => store.write(file, { version: 2, uploads: [...uploads.values()], seen: [...seen.values()] }));
  if (loaded?.stale) await persist();
  /** The profile's entries of that id, then format 1's of the same id (no owner recorded). */
  const both = <T>(map: Map<string, T>, profileId: string, id: string): T[] =>
    [
      map.get(keyOf(profileId, id)),
      profileId === UNKNOWN_OWNER ? undefined : map.get(keyOf(UNKNOWN_OWNER, id)),
    ].filter((x): x is T => x !== undefined);
  // The keychain answered later in the run: a journal that waited for it is read now, and what
  // this run added meanwhile (kept in memory) is written with it.
  o.codec?.onSealed(async () => {
    const again = await serial(() => store.read(file));
    if (!again) return;
    for (const u of again.value.uploads) {
      const key = keyOf(u.profileId, u.documentId);
      if (!uploads.has(key)) uploads.set(key, u);
    }
    for (const l of again.value.seen) {
      const key = keyOf(l.profileId, l.rfiId);
      seen.set(key, { ...l, events: [...l.events, ...(seen.get(key)?.events ?? [])].slice(-200) });
    }
    await persist();
  });
  return {
    async upload(u) {
      uploads.set(keyOf(u.profileId, u.documentId), u);
      while (uploads.size > 5000) uploads.delete(uploads.keys().next().value as string);
      await persist();
    },
    async seen(profileId, rfiId, e) {
      const key = keyOf(profileId, rfiId);
      const list = seen.get(key)?.events ?? [];
      list.push({ ...e, at: new Date().toISOString() });
      seen.delete(key);
      seen.set(key, { profileId, rfiId, events: list.slice(-200) });
      while (seen.size > 2000) seen.delete(seen.keys().next().value as string);
      await persist();
    },
    uploadsOf: (profileId, rfiId) =>
      [...uploads.values()].filter(
        (u) => u.rfiId === rfiId && (u.profileId === profileId || u.profileId === UNKNOWN_OWNER),
      ),
    uploadOf: (profileId, documentId) => both(uploads, profileId, documentId)[0],
    seenOf: (profileId, rfiId) =>
      both(seen, profileId, rfiId)
        .flatMap((l) => l.events)
        .sort((a, b) => a.at.localeCompare(b.at)),
    flush: () => serial(async () => undefined),
  };
}
