/**
 * Case files: for one RFI or a set of them, a PDF an auditor can read (the RFI's metadata, every
 * question with the whole history of responses, every document sent with its sha256, the audit
 * entries that touched the RFI, the notifications and webhook events seen for it; a footer with
 * the export time, the environment and the legal entity) and, optionally, a ZIP beside it with
 * the documents themselves, each named by its sha256 prefix and original name, and a
 * manifest.json listing them.
 *
 * Saved only to a path main's native save dialog answered. Documents stream from the bank's
 * signed download URL to a private temp file (hashed on the way), then into the ZIP (stored, not
 * recompressed: PDFs and images are compressed already), so memory stays flat whatever their
 * size; both files are written under a temporary name and renamed when complete.
 */
import { randomBytes } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { mkdir, rename, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { Rfi } from '../../shared/api/rfis';
import type { CaseFileRfiRef } from '../../shared/ipc/channels/case-files';
import { isTransientRead } from '../../shared/failure-policy';
import { AppFailure } from '../../shared/ipc/errors';
import type { AuditLog } from '../bank/audit';
import type { BankClient } from '../bank/client';
import type { Logger } from '../infra/log';
import type { Platform } from '../infra/platform';
import { privateFileMode } from '../infra/durable-file';
import type { TempArea } from '../infra/temp-area';
import type { BlobCodec } from '../infra/sealed-blob';
import { auditLinesFor, caseFileBlocks, ownedKey } from './content';
import type { CaseFileTeamLog, ReadRfi } from './content';
import { documentRefs, fetchDocument } from './documents';
import type { DocInfo } from './documents';
import type { CaseFileJournal } from './journal';
import { renderCaseFilePdf } from './pdf';
import { chooseCaseFilePaths } from './save';
import { pdfTime } from './words';
import { openZipSink } from './zip';
import type { ZipSink } from './zip';

export type { ManifestEntry } from './zip';

/**
 * The profile that owns one RFI: each RFI, and its documents, is read with its own profile's
 * bank client and token, whatever profile is active.
 */
export interface CaseFileOwner {
  profileId: string;
  bank: Pick<BankClient, 'getRfi' | 'getDocument' | 'downloadDocument'>;
  /** The cached RFI when the bank cannot be read now (null when not cached). */
  cachedRfi(rfiId: string): Promise<Rfi | null>;
  environment: { name: string; kind: string; baseUrl: string };
  /** The legal entity's name (the bank's) and id (null while the bank has not said). */
  entityName: string;
  legalEntityId: string | null;
  /** The credential it reads with, for the export line. */
  who: string;
  /** What an RFI of this profile is about, in words, named through this profile (null: not known). */
  relatedName?(rfi: Rfi): Promise<string | null>;
}

export interface CaseFileDeps {
  dataDir: string;
  /** Records the ZIP and PDF parts written beside the analyst's file, so a kill leaves none behind. */
  temps?: Pick<TempArea, 'track' | 'untrack'>;
  /**
   * Seals the documents downloaded for the ZIP while they wait in the data folder's temp area
   * (plain without a data key, as every other file then).
   */
  blobs?: () => BlobCodec;
  /**
   * The owner of an RFI: the named profile, which must be a known profile holding the RFI
   * (refused as a typed error otherwise; never another profile's RFI of the same id).
   */
  owner(rfiId: string, profileId: string): Promise<CaseFileOwner>;
  audit: Pick<AuditLog, 'list'>;
  journal: CaseFileJournal;
  /** The team's log about an RFI, read through its owning profile (null in solo use, or not a member). */
  teamLog?(rfiId: string, profileId: string): Promise<CaseFileTeamLog | null>;
  platform: Platform;
  log: Logger;
}

export type { CaseFileRfiRef } from '../../shared/ipc/channels/case-files';

export interface CaseFileResult {
  path: string | null;
  zipPath: string | null;
  rfis: number;
  documents: number;
}

export interface CaseFiles {
  /** Asks main's save dialog for the PDF's path (the ZIP goes beside it), then writes them. */
  export(rfis: readonly CaseFileRfiRef[], o: { zip: boolean }): Promise<CaseFileResult>;
  /** Writes the case file to the given paths (the dialog's answer; tests and the bench). */
  write(rfis: readonly CaseFileRfiRef[], pdfPath: string, zipPath: string | null): Promise<CaseFileResult>;
  /** Opens the file manager at a case file saved by export in this run (and no other file). */
  showInFolder(file: string): void;
}

type Temps = Pick<TempArea, 'track' | 'untrack'>;

/** The RFI from its owner's bank, else (the bank away) as its owner's cache last held it. */
async function readRfi(id: string, owner: CaseFileOwner): Promise<ReadRfi & { owner: CaseFileOwner }> {
  const named = async (rfi: Rfi): Promise<string | null> =>
    owner.relatedName ? owner.relatedName(rfi).catch(() => null) : null;
  try {
    const rfi = await owner.bank.getRfi(id);
    return { rfi, fromCache: false, owner, related: await named(rfi) };
  } catch (err) {
    if (err instanceof AppFailure && isTransientRead(err.toAppError())) {
      const cached = await owner.cachedRfi(id);
      if (cached) return { rfi: cached, fromCache: true, owner, related: await named(cached) };
    }
    throw err;
  }
}

/** A downloaded document's plain bytes, a chunk at a time (through the seal when it was sealed). */
async function openTemp(
  temp: { file: string; sealed: boolean },
  blobs: BlobCodec | null,
): Promise<AsyncIterable<Buffer>> {
  if (!temp.sealed || !blobs) return createReadStream(temp.file, { highWaterMark: 256 * 1024 });
  const reader = await blobs.open(temp.file, true);
  return (async function* () {
    try {
      yield* reader.chunks();
    } finally {
      await reader.close();
    }
  })();
}

/** Every RFI's documents read through its owner, each put in the ZIP (when one is written). */
async function collectDocuments(
  rfis: Array<ReadRfi & { owner: CaseFileOwner }>,
  zip: ZipSink | null,
  journal: CaseFileJournal,
  tmpDir: string,
  blobs: BlobCodec | null,
): Promise<Map<string, DocInfo[]>> {
  const docsByRfi = new Map<string, DocInfo[]>();
  for (const { rfi, owner } of rfis) {
    const list: DocInfo[] = [];
    for (const ref of documentRefs(rfi)) {
      const { info, temp } = await fetchDocument(
        ref,
        journal.uploadOf(owner.profileId, ref.documentId),
        owner.bank,
        tmpDir,
        blobs,
      );
      try {
        if (zip && temp && info.sha256)
          info.file = await zip.add(info, info.sha256, await openTemp(temp, blobs));
      } finally {
        if (temp) await rm(temp.file, { force: true });
      }
      list.push(info);
    }
    docsByRfi.set(ownedKey(owner.profileId, rfi.id), list);
  }
  return docsByRfi;
}

/** The PDF written under a temporary name, then both files renamed into place. */
async function placeFiles(
  bytes: Uint8Array,
  files: { pdfPath: string; pdfTemp: string; zipPath: string | null; zipTemp: string | null },
  temps: Temps,
): Promise<void> {
  const { pdfPath, pdfTemp, zipPath, zipTemp } = files;
  try {
    await writeFile(pdfTemp, bytes, { mode: privateFileMode });
    await rename(pdfTemp, pdfPath);
    if (zipTemp && zipPath) await rename(zipTemp, zipPath);
  } catch (err) {
    await rm(pdfTemp, { force: true });
    if (zipTemp) await rm(zipTemp, { force: true });
    throw new AppFailure(
      { kind: 'local', message: `The case file could not be written (${path.basename(pdfPath)}).` },
      { cause: err },
    );
  }
  await temps.untrack(pdfTemp);
  if (zipTemp) await temps.untrack(zipTemp);
}

export function createCaseFiles(deps: CaseFileDeps): CaseFiles {
  const temps: Temps = deps.temps ?? { track: async () => undefined, untrack: async () => undefined };
  const tmpDir = path.join(deps.dataDir, 'case-files', 'tmp');

  const write: CaseFiles['write'] = async (refs, pdfPath, zipPath) => {
    // Each RFI once, by its owner and id (two banks may use the same RFI id).
    const wanted = [...new Map(refs.map((r) => [ownedKey(r.profileId, r.rfiId), r] as const)).values()];
    const ids = [...new Set(wanted.map((r) => r.rfiId))];
    await mkdir(tmpDir, { recursive: true, mode: 0o700 });
    const exportedAt = new Date().toISOString();
    const rfis: Array<ReadRfi & { owner: CaseFileOwner }> = [];
    for (const r of wanted) rfis.push(await readRfi(r.rfiId, await deps.owner(r.rfiId, r.profileId)));
    // Every entity (and bank) the RFIs belong to, once each, for the export line and the footer.
    const sources = [...new Map(rfis.map(({ owner: o }) => [o.profileId, o] as const)).values()];
    const entities = sources.map((o) =>
      o.legalEntityId ? `${o.entityName} (${o.legalEntityId})` : o.entityName,
    );
    const env = {
      name: [...new Set(sources.map((o) => o.environment.name))].join(', '),
    };
    const legalEntity = entities.join(', ') || null;

    const zipTemp = zipPath ? `${zipPath}.${randomBytes(6).toString('hex')}.part` : null;
    const pdfTemp = `${pdfPath}.${randomBytes(6).toString('hex')}.part`;
    // Recorded before they exist, so a kill mid-export leaves nothing the next start misses.
    if (zipTemp) await temps.track(zipTemp);
    await temps.track(pdfTemp);
    const zip = zipTemp ? openZipSink(zipTemp) : null;
    let docsByRfi: Map<string, DocInfo[]>;
    try {
      docsByRfi = await collectDocuments(rfis, zip, deps.journal, tmpDir, deps.blobs?.() ?? null);
      await zip?.finish({
        exportedAt,
        environment: env.name,
        legalEntity,
        rfis: rfis.map(({ rfi, owner }) => ({
          rfiId: rfi.id,
          legalEntity: owner.entityName,
          legalEntityId: rfi.legal_entity_id || owner.legalEntityId,
          environment: owner.environment.name,
        })),
      });
    } catch (err) {
      zip?.destroy();
      if (zipTemp) await rm(zipTemp, { force: true });
      throw new AppFailure(
        {
          kind: 'local',
          message: `The case file could not be written (${path.basename(zipPath ?? pdfPath)}).`,
        },
        { cause: err },
      );
    }

    const docIds = new Set([...docsByRfi.values()].flat().map((d) => d.documentId));
    const audit = await auditLinesFor(
      deps.audit,
      rfis.map(({ rfi, owner }) => ({ profileId: owner.profileId, rfiId: rfi.id })),
      docIds,
    );
    // The team's part, when a team is in use: never a reason for the export to fail.
    const team = new Map<string, CaseFileTeamLog | null>();
    if (deps.teamLog)
      for (const r of rfis)
        team.set(
          ownedKey(r.owner.profileId, r.rfi.id),
          await deps.teamLog(r.rfi.id, r.owner.profileId).catch((err: unknown) => {
            deps.log.warn('case file: the team log could not be read', { rfiId: r.rfi.id, error: err });
            return null;
          }),
        );
    const blocks = caseFileBlocks({
      rfis,
      sources,
      docsByRfi,
      audit,
      team,
      journal: deps.journal,
      exportedAt,
    });
    const bytes = await renderCaseFilePdf(blocks, {
      title: blocks[0]!.kind === 'title' ? (blocks[0] as { text: string }).text : 'Case file',
      subject: ids.join(', '),
      footer: `Exported ${pdfTime(exportedAt)} · environment ${env.name} · legal entity ${sources.map((o) => o.entityName).join(', ')}`,
    });
    await placeFiles(bytes, { pdfPath, pdfTemp, zipPath, zipTemp }, temps);
    return { path: pdfPath, zipPath, rfis: rfis.length, documents: docIds.size };
  };

  /** The case files export saved in this run: the only files showInFolder opens. */
  const saved = new Set<string>();

  return {
    write,
    async export(refs, o) {
      // An owner that is not known is refused before the analyst is asked where to save.
      for (const r of refs) await deps.owner(r.rfiId, r.profileId);
      const first = refs[0]?.rfiId ?? 'rfis';
      const base = `case-file-${refs.length === 1 ? first : `${refs.length}-rfis`}-${new Date().toISOString().slice(0, 10)}`;
      const paths = await chooseCaseFilePaths(deps.platform, base, o.zip);
      if (!paths) return { path: null, zipPath: null, rfis: 0, documents: 0 };
      const result = await write(refs, paths.pdfPath, paths.zipPath);
      saved.add(paths.pdfPath);
      return result;
    },
    showInFolder(file) {
      // Only a case file this run saved: the page cannot point the file manager anywhere else.
      if (!saved.has(file))
        throw new AppFailure({
          kind: 'invalid_argument',
          message: 'That file is not a case file saved here.',
        });
      deps.platform.showItemInFolder?.(file);
    },
  };
}
