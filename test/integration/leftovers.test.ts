import { mkdir, readdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { openTempArea } from '../../src/main/infra/temp-area';
import { plainCodec } from '../../src/main/infra/at-rest';
import { createLogger, memorySink } from '../../src/main/infra/log';
import { startServices, tempDir } from '../support/services';
import { stageDropped } from '../support/staging';
import type { TestServices } from '../support/services';

/**
 * Nothing left behind, no disk fill (issue item 2): the attacks go through the page's own API
 * (handlers as the dispatcher calls them) and a kill simulated by leaving parts where an
 * interrupted upload or export leaves them.
 */

const pdf = (size: number): Buffer =>
  Buffer.concat([
    Buffer.from('%PDF-1.4\n1 0 obj\n<<>>\nendobj\n'),
    Buffer.alloc(size, 0x20),
    Buffer.from('\nxref\n0 1\n0000000000 65535 f \ntrailer\n<<>>\nstartxref\n9\n%%EOF\n'),
  ]);

let t: TestServices | null = null;
afterEach(async () => {
  await t?.close();
  t = null;
});

async function stage(s: TestServices, bytes: Buffer) {
  return s.services.rfiAnswers.files.view(await stageDropped(s, bytes, { chunkBytes: 48 * 1024 }));
}

const stagingDir = (s: TestServices): string => path.join(s.dataDir, 'rfi-answers', 'staging');

describe('leftovers', () => {
  it('a locker document attached and never sent expires (here after 200 ms) and is gone at the next start', async () => {
    const dataDir = await tempDir();
    const src = path.join(dataDir, '..', `passport-${Date.now()}.pdf`);
    await writeFile(src, pdf(10_000));
    t = await startServices({ dataDir, rfis: { autoStart: false }, rfiAnswers: { stagedTtlMs: 200 } });
    t.platform.nextDialogAnswers.push([src]);
    const added = await t.services.handlers['locker.add']({
      source: { from: 'picker' },
      documentType: 'passport',
      holder: { kind: 'person', name: 'Ada Lovelace' },
    });
    const rfiId = t.services.sandbox!.fixtures.legal_entities[0]!.rfi_ids[0]!;
    const attached = await t.services.handlers['locker.attach']({
      profileId: t.services.session.profile.id,
      id: added.document!.id,
      rfiId,
      questionId: 'q_1',
    });
    expect(await readdir(stagingDir(t))).toEqual([`${attached.ref}.bin`]);
    await t.stop();
    await new Promise((r) => setTimeout(r, 250));
    t = await startServices({ dataDir, rfis: { autoStart: false }, rfiAnswers: { stagedTtlMs: 200 } });
    expect(await readdir(stagingDir(t))).toEqual([]);
    expect(() => t!.services.rfiAnswers.files.resolve(attached.ref)).toThrow(/not issued/);
  });

  it('parts left by a kill during an upload or an export are removed at start, inside and beside the data folder', async () => {
    const dataDir = await tempDir();
    t = await startServices({ dataDir, rfis: { autoStart: false } });
    await t.stop();
    await mkdir(path.join(dataDir, 'case-files', 'tmp'), { recursive: true });
    await writeFile(
      path.join(dataDir, 'case-files', 'tmp', '0123456789abcdef01234567.part'),
      'customer document',
    );
    await writeFile(path.join(stagingDir(t), 'f_0123456789abcdef01234567.part'), 'half a dropped file');
    // An export beside the analyst's chosen file, recorded before it was created, then a kill.
    const outside = await tempDir();
    const zipPart = path.join(outside, 'case.zip.0123456789ab.part');
    const area = await openTempArea({ dataDir: outside, codec: plainCodec, log: createLogger(memorySink()) });
    await area.track(zipPart);
    await writeFile(zipPart, 'zip with customer documents');
    const unrelated = path.join(outside, 'keep-me.part');
    await writeFile(unrelated, 'not ours');
    const reopened = await openTempArea({
      dataDir: outside,
      codec: plainCodec,
      log: createLogger(memorySink()),
    });
    expect(reopened.swept).toBe(1);
    expect((await readdir(outside)).sort()).toEqual(['keep-me.part', 'temp-files.json']);

    t = await startServices({ dataDir, rfis: { autoStart: false } });
    expect(await readdir(path.join(dataDir, 'case-files', 'tmp'))).toEqual([]);
    expect(await readdir(stagingDir(t))).toEqual([]);
  });

  it('a page cannot fill the disk: staging stops at the quota, in words, and frees when files are released', async () => {
    t = await startServices({
      rfis: { autoStart: false },
      rfiAnswers: { maxUploadBytes: 300_000, stagingQuotaBytes: 1_000_000 },
    });
    const refs: string[] = [];
    for (let i = 0; i < 4; i++) refs.push((await stage(t, pdf(240_000))).ref);
    await expect(stage(t, pdf(240_000))).rejects.toThrow(
      /more than 1.0 MiB on this computer. Send or remove answers/,
    );
    await t.services.rfiAnswers.releaseUnused(refs.slice(0, 2));
    await expect(stage(t, pdf(240_000))).resolves.toMatchObject({ name: 'statement.pdf' });
  });
});
