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
import type { TempArea } from '../infra/temp-area';
import { createHash, randomBytes } from 'node:crypto';
import { createReadStream, createWriteStream } from 'node:fs';
import type { WriteStream } from 'node:fs';
import { mkdir, rename, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { Zip, ZipPassThrough } from 'fflate';
import type { Rfi } from '../../shared/api/rfis';
import { isTransientRead } from '../../shared/failure-policy';
import { DeskFailure } from '../../shared/ipc/errors';
import type { AuditEntry, AuditLog } from '../bank/audit';
import type { BankClient } from '../bank/client';
import { privateFileMode } from '../infra/durable-file';
import type { Logger } from '../infra/log';
import type { Platform } from '../infra/platform';
import type { CaseFileJournal, JournalUpload } from './journal';
import { renderCaseFilePdf } from './pdf';
import { chooseCaseFilePaths } from './save';
import {
  auditLine,
  documentLine,
  pdfTime,
  questionFacts,
  responseLine,
  rfiFacts,
  rfiName,
  seenLine,
} from './words';
import { plural, questionTypeWords } from '../../shared/words';
import type { Block } from './pdf';

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
}

export interface CaseFileDeps {
  dataDir: string;
  /** Records the ZIP and PDF parts written beside the analyst's file, so a kill leaves none behind. */
  temps?: Pick<TempArea, 'track' | 'untrack'>;
  /** The owner of an RFI: the named profile, else the one profile that holds it. */
  owner(rfiId: string, profileId?: string): Promise<CaseFileOwner>;
  audit: Pick<AuditLog, 'list'>;
  journal: CaseFileJournal;
  platform: Platform;
  log: Logger;
}

/** Which profile owns each RFI, as the page's rows say (RFI id → profile id); absent: found by main. */
export type CaseFileOwners = Readonly<Record<string, string>>;

export interface CaseFileResult {
  path: string | null;
  zipPath: string | null;
  rfis: number;
  documents: number;
}

export interface ManifestEntry {
  file: string;
  documentId: string;
  rfiId: string;
  questionId: string | null;
  name: string;
  documentType: string | null;
  contentType: string;
  sizeBytes: number;
  sha256: string;
  uploadedAt: string | null;
}

export interface CaseFiles {
  /** Asks main's save dialog for the PDF's path (the ZIP goes beside it), then writes them. */
  export(rfiIds: string[], o: { zip: boolean; owners?: CaseFileOwners }): Promise<CaseFileResult>;
  /** Writes the case file to the given paths (the dialog's answer; tests and the bench). */
  write(
    rfiIds: string[],
    pdfPath: string,
    zipPath: string | null,
    owners?: CaseFileOwners,
  ): Promise<CaseFileResult>;
  /** Opens the file manager at a case file saved by export in this run (and no other file). */
  showInFolder(file: string): void;
}

interface DocRef {
  documentId: string;
  rfiId: string;
  questionId: string | null;
  /** Who sent it: customer, staff, system, or the question itself (a staff attachment). */
  from: string;
  at: string;
}

interface DocInfo extends DocRef {
  name: string;
  documentType: string | null;
  contentType: string;
  sizeBytes: number | null;
  sha256: string | null;
  uploadedAt: string | null;
  problem: string | null;
  file: string | null;
}

const textOf = (
  r: Rfi['questions'][number]['responses'][number],
): { text: string; documentIds: string[] } => {
  const parts = Object.values(r.response);
  return {
    text: parts.map((p) => p.response_text).join('\n'),
    documentIds: parts.flatMap((p) => p.document_ids),
  };
};

/** A file name part: no folders, no control characters, short. */
function cleanName(name: string): string {
  const base = name.split(/[\\/]/).pop() ?? name;
  // eslint-disable-next-line no-control-regex
  return base.replace(/[\u0000-\u001f\u007f:*?"<>|]/g, '_').slice(0, 120) || 'document';
}

const extensionOf = (contentType: string): string =>
  contentType === 'application/pdf'
    ? 'pdf'
    : contentType === 'image/png'
      ? 'png'
      : contentType === 'image/jpeg'
        ? 'jpg'
        : 'bin';

/** Writes chunks to a file stream, waiting whenever the stream asks to (flat memory). */
function drainingWriter(out: WriteStream): {
  write(chunk: Uint8Array): Promise<void>;
  failed(): Error | null;
} {
  let error: Error | null = null;
  out.on('error', (e) => (error = e));
  return {
    async write(chunk) {
      if (error) throw error;
      if (!out.write(chunk)) await new Promise<void>((r) => out.once('drain', r));
    },
    failed: () => error,
  };
}

export function createCaseFiles(deps: CaseFileDeps): CaseFiles {
  const temps = deps.temps ?? { track: async () => undefined, untrack: async () => undefined };
  const tmpDir = path.join(deps.dataDir, 'case-files', 'tmp');

  const readRfi = async (
    id: string,
    owner: CaseFileOwner,
  ): Promise<{ rfi: Rfi; fromCache: boolean; owner: CaseFileOwner }> => {
    try {
      return { rfi: await owner.bank.getRfi(id), fromCache: false, owner };
    } catch (err) {
      if (err instanceof DeskFailure && isTransientRead(err.toDeskError())) {
        const cached = await owner.cachedRfi(id);
        if (cached) return { rfi: cached, fromCache: true, owner };
      }
      throw err;
    }
  };

  const documentRefs = (rfi: Rfi): DocRef[] => {
    const refs = new Map<string, DocRef>();
    for (const q of rfi.questions) {
      for (const id of q.question_data?.document_ids ?? []) {
        if (!refs.has(id))
          refs.set(id, {
            documentId: id,
            rfiId: rfi.id,
            questionId: q.id,
            from: 'question',
            at: q.created_at,
          });
      }
      for (const r of q.responses) {
        for (const id of textOf(r).documentIds) {
          // A document a response sent is that responder's, even when the question lists it too.
          if (!refs.has(id) || refs.get(id)!.from === 'question')
            refs.set(id, {
              documentId: id,
              rfiId: rfi.id,
              questionId: q.id,
              from: r.responder_type,
              at: r.created_at,
            });
        }
      }
    }
    return [...refs.values()];
  };

  /** Streams one document from the bank to a temp file, hashing it; answers the temp file. */
  const fetchDocument = async (
    ref: DocRef,
    known: JournalUpload | undefined,
    bank: CaseFileOwner['bank'],
  ): Promise<{ info: DocInfo; temp: string | null }> => {
    const info: DocInfo = {
      ...ref,
      name: known?.name ?? ref.documentId,
      documentType: known?.documentType ?? null,
      contentType: known?.contentType ?? 'application/octet-stream',
      sizeBytes: known?.sizeBytes ?? null,
      sha256: null,
      uploadedAt: known?.uploadedAt ?? null,
      problem: null,
      file: null,
    };
    let meta: Awaited<ReturnType<CaseFileOwner['bank']['getDocument']>>;
    try {
      meta = await bank.getDocument(ref.documentId);
    } catch (err) {
      info.problem = `not readable at the bank (${err instanceof DeskFailure ? err.message : 'error'})`;
      return { info, temp: null };
    }
    info.contentType = meta.content_type;
    info.sizeBytes = meta.size_bytes;
    if (!known) info.name = `${ref.documentId}.${extensionOf(meta.content_type)}`;
    if (!meta.url) {
      info.problem = 'never uploaded (the bank holds no bytes)';
      return { info, temp: null };
    }
    const temp = path.join(tmpDir, `${randomBytes(12).toString('hex')}.part`);
    const hash = createHash('sha256');
    let bytes = 0;
    try {
      const body = await bank.downloadDocument(meta.url);
      await pipeline(
        body,
        new Transform({
          transform(chunk: Buffer, _enc, done) {
            hash.update(chunk);
            bytes += chunk.length;
            done(null, chunk);
          },
        }),
        createWriteStream(temp, { mode: privateFileMode }),
      );
    } catch (err) {
      await rm(temp, { force: true });
      info.problem = `could not be downloaded (${err instanceof DeskFailure ? err.message : 'error'})`;
      return { info, temp: null };
    }
    info.sha256 = hash.digest('hex');
    info.sizeBytes = bytes;
    if (known && known.sha256 && known.sha256 !== info.sha256) {
      info.problem = `the bank's bytes differ from what this workstation uploaded (sha256 ${known.sha256})`;
    }
    return { info, temp };
  };

  const auditLinesFor = async (
    rfiIds: Set<string>,
    docIds: Set<string>,
  ): Promise<Map<string, AuditEntry[]>> => {
    const out = new Map<string, AuditEntry[]>();
    let before: string | undefined;
    for (;;) {
      const page = await deps.audit.list({ limit: 1000, ...(before ? { before } : {}) });
      for (const e of page.entries) {
        for (const id of rfiIds) {
          const touches =
            e.target === id ||
            (e.detail ?? '').includes(`RFI ${id}`) ||
            (e.target !== null && docIds.has(e.target) && (e.detail ?? '').includes(id));
          if (touches) out.set(id, [...(out.get(id) ?? []), e]);
        }
      }
      if (!page.nextBefore) break;
      before = page.nextBefore;
    }
    for (const list of out.values()) list.reverse(); // oldest first
    return out;
  };

  const write: CaseFiles['write'] = async (rfiIds, pdfPath, zipPath, owners) => {
    const ids = [...new Set(rfiIds)];
    await mkdir(tmpDir, { recursive: true, mode: 0o700 });
    const exportedAt = new Date().toISOString();
    const rfis: Array<{ rfi: Rfi; fromCache: boolean; owner: CaseFileOwner }> = [];
    for (const id of ids) rfis.push(await readRfi(id, await deps.owner(id, owners?.[id])));
    // Every entity (and bank) the RFIs belong to, once each, for the export line and the footer.
    const sources = [...new Map(rfis.map(({ owner: o }) => [o.profileId, o] as const)).values()];
    const entities = sources.map((o) =>
      o.legalEntityId ? `${o.entityName} (${o.legalEntityId})` : o.entityName,
    );
    const env = {
      name: [...new Set(sources.map((o) => o.environment.name))].join(', '),
      kind: [...new Set(sources.map((o) => o.environment.kind))].join(', '),
    };
    const legalEntity = entities.join(', ') || null;

    const docsByRfi = new Map<string, DocInfo[]>();
    const manifest: ManifestEntry[] = [];
    const zipTemp = zipPath ? `${zipPath}.${randomBytes(6).toString('hex')}.part` : null;
    const pdfTemp = `${pdfPath}.${randomBytes(6).toString('hex')}.part`;
    // Recorded before they exist, so a kill mid-export leaves nothing the next start misses.
    if (zipTemp) await temps.track(zipTemp);
    await temps.track(pdfTemp);
    const out = zipTemp ? createWriteStream(zipTemp, { mode: privateFileMode }) : null;
    const writer = out ? drainingWriter(out) : null;
    let zipError: Error | null = null;
    const zip = writer
      ? new Zip((err, data) => {
          if (err) zipError = err;
          else pending.push(data);
        })
      : null;
    /** Chunks fflate produced, written with backpressure between pushes. */
    const pending: Uint8Array[] = [];
    const flush = async (): Promise<void> => {
      if (zipError) throw zipError;
      while (pending.length > 0) await writer!.write(pending.shift()!);
    };
    const used = new Set<string>();
    try {
      for (const { rfi, owner } of rfis) {
        const list: DocInfo[] = [];
        for (const ref of documentRefs(rfi)) {
          const { info, temp } = await fetchDocument(ref, deps.journal.uploadOf(ref.documentId), owner.bank);
          try {
            if (zip && temp && info.sha256) {
              let file = `${info.sha256.slice(0, 12)}-${cleanName(info.name)}`;
              if (used.has(file))
                file = `${info.sha256.slice(0, 12)}-${info.documentId}-${cleanName(info.name)}`;
              used.add(file);
              const entry = new ZipPassThrough(file);
              zip.add(entry);
              for await (const chunk of createReadStream(temp, { highWaterMark: 256 * 1024 })) {
                entry.push(chunk as Buffer);
                await flush();
              }
              entry.push(new Uint8Array(0), true);
              await flush();
              info.file = file;
              manifest.push({
                file,
                documentId: info.documentId,
                rfiId: rfi.id,
                questionId: info.questionId,
                name: info.name,
                documentType: info.documentType,
                contentType: info.contentType,
                sizeBytes: info.sizeBytes ?? 0,
                sha256: info.sha256,
                uploadedAt: info.uploadedAt,
              });
            }
          } finally {
            if (temp) await rm(temp, { force: true });
          }
          list.push(info);
        }
        docsByRfi.set(rfi.id, list);
      }
      if (zip) {
        const m = new ZipPassThrough('manifest.json');
        zip.add(m);
        const json = JSON.stringify(
          { exportedAt, environment: env.name, legalEntity, rfis: ids, documents: manifest },
          null,
          2,
        );
        m.push(new TextEncoder().encode(json), true);
        zip.end();
        await flush();
        await new Promise<void>((resolve, reject) =>
          out!.end((err?: Error | null) => (err ? reject(err) : resolve())),
        );
        if (writer!.failed()) throw writer!.failed();
      }
    } catch (err) {
      out?.destroy();
      if (zipTemp) await rm(zipTemp, { force: true });
      throw new DeskFailure(
        {
          kind: 'local',
          message: `The case file could not be written (${path.basename(zipPath ?? pdfPath)}).`,
        },
        { cause: err },
      );
    }

    // The PDF.
    const docIds = new Set([...docsByRfi.values()].flat().map((d) => d.documentId));
    const audit = await auditLinesFor(new Set(ids), docIds);
    const blocks: Block[] = [];
    blocks.push({
      kind: 'title',
      text:
        rfis.length === 1 ? `Case file: ${rfiName(rfis[0]!.rfi)}` : `Case file: ${plural(ids.length, 'RFI')}`,
    });
    blocks.push({
      kind: 'text',
      text:
        `Exported ${pdfTime(exportedAt)}. ` +
        sources
          .map(
            (o) =>
              `${o.entityName}: read by ${o.who} from ${o.environment.name} (${o.environment.baseUrl}); legal entity ${o.legalEntityId ?? 'not known'}.`,
          )
          .join(' '),
    });
    for (const { rfi, fromCache, owner } of rfis) {
      const docs = docsByRfi.get(rfi.id) ?? [];
      const names = new Map(docs.map((d) => [d.documentId, d.name]));
      blocks.push({ kind: 'gap' }, { kind: 'heading', text: rfiName(rfi) });
      blocks.push({ kind: 'mono', text: `RFI ${rfi.id}` });
      const entityId = rfi.legal_entity_id || owner.legalEntityId;
      blocks.push({
        kind: 'text',
        text: rfiFacts(rfi, entityId ? `${owner.entityName} (${entityId})` : owner.entityName, fromCache),
      });
      // The description is the heading; it is not repeated under it.
      if (rfi.description && rfi.description.trim() !== rfiName(rfi))
        blocks.push({ kind: 'text', text: `Description: ${rfi.description}` });
      rfi.questions.forEach((q, i) => {
        blocks.push({
          kind: 'subheading',
          text: `Question ${i + 1} of ${rfi.questions.length}: ${q.question_data?.question_text || questionTypeWords(q.question_type)}`,
        });
        blocks.push({
          kind: 'text',
          text: questionFacts(q),
        });
        if (q.question_data?.comment)
          blocks.push({ kind: 'text', text: `Comment: ${q.question_data.comment}` });
        blocks.push({ kind: 'mono', text: `question id ${q.id}` });
        if (q.responses.length === 0) blocks.push({ kind: 'text', text: 'No responses.' });
        for (const r of q.responses) {
          const c = textOf(r);
          blocks.push({
            kind: 'text',
            text: responseLine(
              r.responder_type,
              r.created_at,
              c.text,
              c.documentIds.map((d) => names.get(d) ?? d),
            ),
          });
          blocks.push({ kind: 'mono', text: `response id ${r.id}` });
          for (const d of c.documentIds) blocks.push({ kind: 'mono', text: `document ${d}` });
        }
      });
      blocks.push({ kind: 'subheading', text: `Documents sent (${docs.length})` });
      if (docs.length === 0) blocks.push({ kind: 'text', text: 'None.' });
      for (const d of docs) {
        blocks.push({ kind: 'text', text: documentLine(d) });
        blocks.push({ kind: 'mono', text: `document id ${d.documentId}` });
        blocks.push({ kind: 'mono', text: `sha256 ${d.sha256 ?? 'unknown'}` });
        if (d.file) blocks.push({ kind: 'mono', text: `in the ZIP as ${d.file}` });
      }
      const lines = audit.get(rfi.id) ?? [];
      blocks.push({ kind: 'subheading', text: `Audit entries (${lines.length})` });
      if (lines.length === 0) blocks.push({ kind: 'text', text: 'None recorded on this computer.' });
      for (const e of lines) {
        blocks.push({
          kind: 'text',
          text: auditLine(e),
        });
        blocks.push({ kind: 'mono', text: `audit entry ${e.id}` });
      }
      const seen = deps.journal.seenOf(rfi.id);
      blocks.push({ kind: 'subheading', text: `Notifications and webhook events seen (${seen.length})` });
      if (seen.length === 0) blocks.push({ kind: 'text', text: 'None seen on this computer.' });
      for (const s of seen) blocks.push({ kind: 'text', text: seenLine(s) });
    }
    const bytes = await renderCaseFilePdf(blocks, {
      title: blocks[0]!.kind === 'title' ? (blocks[0] as { text: string }).text : 'Case file',
      subject: ids.join(', '),
      footer: `Exported ${pdfTime(exportedAt)} · environment ${env.name} (${env.kind}) · legal entity ${sources.map((o) => o.entityName).join(', ')}`,
    });
    try {
      await writeFile(pdfTemp, bytes, { mode: privateFileMode });
      await rename(pdfTemp, pdfPath);
      if (zipTemp && zipPath) await rename(zipTemp, zipPath);
    } catch (err) {
      await rm(pdfTemp, { force: true });
      if (zipTemp) await rm(zipTemp, { force: true });
      throw new DeskFailure(
        { kind: 'local', message: `The case file could not be written (${path.basename(pdfPath)}).` },
        { cause: err },
      );
    }
    await temps.untrack(pdfTemp);
    if (zipTemp) await temps.untrack(zipTemp);
    return { path: pdfPath, zipPath, rfis: ids.length, documents: docIds.size };
  };

  /** The case files export saved in this run: the only files showInFolder opens. */
  const saved = new Set<string>();

  return {
    write,
    async export(rfiIds, o) {
      const first = rfiIds[0] ?? 'rfis';
      const base = `case-file-${rfiIds.length === 1 ? first : `${rfiIds.length}-rfis`}-${new Date().toISOString().slice(0, 10)}`;
      const paths = await chooseCaseFilePaths(deps.platform, base, o.zip);
      if (!paths) return { path: null, zipPath: null, rfis: 0, documents: 0 };
      const result = await write(rfiIds, paths.pdfPath, paths.zipPath, o.owners);
      saved.add(paths.pdfPath);
      return result;
    },
    showInFolder(file) {
      // Only a case file this run saved: the page cannot point the file manager anywhere else.
      if (!saved.has(file))
        throw new DeskFailure({
          kind: 'invalid_argument',
          message: 'That file is not a case file saved here.',
        });
      deps.platform.showItemInFolder?.(file);
    },
  };
}
