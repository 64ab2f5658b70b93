/**
 * The temp area: every temporary file that holds customer bytes (a dropped file while its chunks
 * arrive, a locker copy being written, a bank document on its way into a case file's ZIP, the ZIP and PDF being written beside
 * the analyst's chosen file) is either under a folder of the data folder this module sweeps at
 * start, or recorded in the sealed list `temp-files.json` before it is created and removed from it
 * once renamed or deleted. A kill at any moment therefore leaves nothing behind after the next
 * start: the folders are emptied of parts, and every recorded file outside is deleted.
 */
import { readdir, rm } from 'node:fs/promises';
import path from 'node:path';
import { z } from 'zod';
import type { AtRestCodec } from './at-rest';
import { createSerialQueue } from './durable-file';
import { stateFile } from './json-store';
import type { StateFileFormat } from './json-store';
import type { Logger } from './log';

/** Folders (relative to the data folder) whose files are all temporary parts. */
export const TEMP_FOLDERS: ReadonlyArray<{ dir: string; pattern: RegExp }> = [
  { dir: 'case-files/tmp', pattern: /\.part$/ },
  { dir: 'rfi-answers/staging', pattern: /\.part$/ },
  { dir: 'locker/blobs', pattern: /\.part$/ },
];

/** Only names the app itself makes for a temp file beside a target: `<target>.<12 hex>.part`. */
const outsidePattern = /\.[0-9a-f]{12}\.part$/;

const schema = z.object({ version: z.literal(1), files: z.array(z.string()) });
const format: StateFileFormat<z.infer<typeof schema>> = {
  label: 'The list of temporary export files',
  consequence: 'Temporary files of an interrupted export may be left beside the case file.',
  version: 1,
  schema,
};

export interface TempArea {
  /** Records a temp file outside the data folder before it is created. */
  track(file: string): Promise<void>;
  /** It was renamed into place or deleted. */
  untrack(file: string): Promise<void>;
}

export async function openTempArea(o: {
  dataDir: string;
  codec: AtRestCodec;
  log: Logger;
  report?(p: { file: string; movedTo: string | null; message: string }): void;
}): Promise<TempArea & { swept: number }> {
  let swept = 0;
  for (const { dir, pattern } of TEMP_FOLDERS) {
    let names: string[] = [];
    try {
      names = await readdir(path.join(o.dataDir, dir));
    } catch {
      continue;
    }
    for (const name of names) {
      if (!pattern.test(name)) continue;
      await rm(path.join(o.dataDir, dir, name), { force: true });
      swept++;
    }
  }
  const listFile = path.join(o.dataDir, 'temp-files.json');
  const store = stateFile(format, { log: o.log, codec: o.codec, ...(o.report ? { report: o.report } : {}) });
  const left = (await store.read(listFile))?.value.files ?? [];
  for (const f of left) {
    if (!path.isAbsolute(f) || !outsidePattern.test(f)) continue;
    await rm(f, { force: true });
    swept++;
  }
  const files = new Set<string>();
  const serial = createSerialQueue();
  const persist = (): Promise<void> => serial(() => store.write(listFile, { version: 1, files: [...files] }));
  if (left.length > 0) await persist().catch(() => undefined);
  // The keychain answered later in the run: files a killed run left beside the analyst's files
  // (the list waited for the keychain) are removed now.
  o.codec.onSealed(async () => {
    const late = (await serial(() => store.read(listFile)))?.value.files ?? [];
    for (const f of late) {
      if (files.has(f) || !path.isAbsolute(f) || !outsidePattern.test(f)) continue;
      await rm(f, { force: true });
    }
    await persist().catch(() => undefined);
  });
  if (swept > 0) o.log.info('start-up: temporary files of interrupted work removed', { count: swept });
  return {
    swept,
    async track(file) {
      files.add(file);
      await persist();
    },
    async untrack(file) {
      if (!files.delete(file)) return;
      await persist().catch((err: unknown) => o.log.warn('temp area: list not written', { error: err }));
    },
  };
}
