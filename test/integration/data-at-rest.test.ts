import { createHash, randomUUID } from 'node:crypto';
import { mkdir, readFile, readdir, rename, rm, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { AsyncEntry } from '@napi-rs/keyring';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AtRestError, createAtRestCodec } from '../../src/main/infra/at-rest';
import { DATA_KEY_ACCOUNT } from '../../src/main/infra/data-key';
import { createLogger, memorySink } from '../../src/main/infra/log';
import { openVault } from '../../src/main/infra/vault';
import { napiKeyringBackend, unavailableKeyringBackend } from '../../src/main/infra/keyring';
import type { Services } from '../../src/main/core';
import { startSandbox } from '../../src/sandbox/index';
import { startServices, tempDir } from '../support/services';
import { pdfDocument } from '../support/documents';

/**
 * Drafts, the outbox and the RFI cache at rest: sealed with AES-256-GCM under a data key held in
 * the real Secret Service (run under scripts/with-keyring.sh, as npm run test:unit does).
 */

beforeAll(() => {
  if (process.platform === 'linux' && !process.env['DBUS_SESSION_BUS_ADDRESS']) {
    throw new Error('No session bus: run the keychain tests under scripts/with-keyring.sh.');
  }
});

/**
 * Every regular file under dir (recursively), with its bytes. The services may still be writing
 * (a temp file renamed into place between listing and reading): a pass that lost a file is
 * repeated, so the answer is a whole, consistent listing.
 */
async function filesUnder(dir: string): Promise<Array<{ file: string; bytes: Buffer }>> {
  for (let pass = 0; ; pass++) {
    const out: Array<{ file: string; bytes: Buffer }> = [];
    let vanished = false;
    const walk = async (d: string): Promise<void> => {
      for (const e of await readdir(d, { withFileTypes: true })) {
        const full = path.join(d, e.name);
        if (e.isDirectory()) await walk(full);
        else if (e.isFile()) {
          try {
            out.push({ file: full, bytes: await readFile(full) });
          } catch (err) {
            if ((err as NodeJS.ErrnoException).code !== 'ENOENT' || pass >= 10) throw err;
            vanished = true;
          }
        }
      }
    };
    await walk(dir);
    if (!vanished) return out;
  }
}

async function containing(dir: string, marker: string): Promise<string[]> {
  return (await filesUnder(dir)).filter((f) => f.bytes.includes(marker)).map((f) => f.file);
}

async function newRfi(services: Services, description: string, questionType = 'transaction.purpose') {
  const sb = services.sandbox!;
  const r = await fetch(`${sb.url}/v1/sandbox/rfis`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...sb.controlHeaders() },
    body: JSON.stringify({
      type: 'account',
      related_id: sb.fixtures.legal_entities[0]!.accounts[0]!.id,
      description,
      questions: [{ question_type: questionType, question_text: 'Please answer.' }],
    }),
  });
  return (await r.json()) as { id: string; questions: Array<{ id: string; question_type: string }> };
}

async function until(what: string, check: () => boolean | Promise<boolean>, ms = 15_000): Promise<void> {
  const end = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

const pdf = pdfDocument(300);

describe('the at-rest codec', () => {
  const key = { id: 'dk_0123456789abcdef', key: Buffer.alloc(32, 7) };
  const codec = createAtRestCodec(key);

  it('seals with a fresh IV each time and opens only with the key, untouched', () => {
    const a = codec.seal('{"hello":"world"}');
    const b = codec.seal('{"hello":"world"}');
    expect(a).not.toBe(b);
    expect(a).not.toContain('hello');
    expect(JSON.parse(a)).toMatchObject({ tdAtRest: 2, alg: 'A256GCM', kid: key.id });
    expect(codec.open(a)).toEqual({ text: '{"hello":"world"}', sealed: true });

    // One changed byte of the ciphertext, the tag, the IV or the header: refused.
    const env = JSON.parse(a) as Record<string, string>;
    const flip = (b64: string): string => {
      const buf = Buffer.from(b64, 'base64');
      buf[0] = buf[0]! ^ 1;
      return buf.toString('base64');
    };
    for (const field of ['data', 'tag', 'iv']) {
      const bad = a.replace(env[field]!, flip(env[field]!));
      expect(() => codec.open(bad)).toThrow(AtRestError);
    }
    expect(() => codec.open(a.slice(0, a.length - 10))).toThrow(AtRestError);
    const otherKey = createAtRestCodec({ id: key.id, key: Buffer.alloc(32, 8) });
    expect(() => otherKey.open(a)).toThrow(AtRestError);
    const otherId = createAtRestCodec({ id: 'dk_fedcba9876543210', key: key.key });
    expect(() => otherId.open(a)).toThrow(/another data key/);
    expect(() => createAtRestCodec(null).open(a)).toThrow(/no data key/);
  });

  it('reads a plain file as plain (migration), and writes plain without a key', () => {
    expect(codec.open('{"version":1}')).toEqual({ text: '{"version":1}', sealed: false });
    const plain = createAtRestCodec(null);
    expect(plain.encrypted).toBe(false);
    expect(plain.seal('{"a":1}')).toBe('{"a":1}');
  });
});

describe('the data key in the real Secret Service', () => {
  const service = `treasury-desk-test-${randomUUID()}`;
  const raw = () => new AsyncEntry(service, DATA_KEY_ACCOUNT, { linux: { store: 'secret-service' } });
  afterAll(async () => {
    await raw()
      .deleteCredential()
      .catch(() => false);
  });

  it('is created once, reused after a restart, and is no token account', async () => {
    const log = createLogger(memorySink());
    expect(await raw().getPassword()).toBeNull();
    const vault = await openVault({ backend: napiKeyringBackend(), log, service });
    expect(vault.status()).toMatchObject({ backend: 'keychain', dataAtRest: 'encrypted' });
    const key = vault.dataKey()!;
    expect(key.key).toHaveLength(32);
    const stored = JSON.parse((await raw().getPassword())!) as { kid: string; key: string };
    expect(stored.kid).toBe(key.id);
    expect(Buffer.from(stored.key, 'base64').equals(key.key)).toBe(true);

    const again = await openVault({ backend: napiKeyringBackend(), log, service });
    expect(again.dataKey()!.id).toBe(key.id);
    expect(again.dataKey()!.key.equals(key.key)).toBe(true);
    // A profile id can never name the data key's account.
    await expect(vault.get(DATA_KEY_ACCOUNT)).rejects.toMatchObject({ kind: 'invalid_argument' });
  });

  it('without a keychain there is no key and the status says data is unencrypted', async () => {
    const vault = await openVault({
      backend: unavailableKeyringBackend(),
      log: createLogger(memorySink()),
      service,
    });
    expect(vault.dataKey()).toBeNull();
    expect(vault.status()).toMatchObject({ backend: 'memory', dataAtRest: 'unencrypted' });
  });
});

describe('state files of the real services', () => {
  it('hold no plaintext of drafts, answers or RFI descriptions; the key is in no file', async () => {
    const dataDir = path.join(await tempDir('td-at-rest-'), 'data');
    const t = await startServices({ dataDir, rfis: { autoStart: false } });
    try {
      expect(t.services.vault.status().dataAtRest).toBe('encrypted');
      const tag = randomUUID().replace(/-/g, '');
      const described = await newRfi(t.services, `description-marker-${tag}`);
      const answered = await newRfi(t.services, 'to answer');
      await t.services.rfis.sync('sync', true);
      const q = described.questions[0]!;
      await t.services.rfiAnswers.saveDraft({
        rfiId: described.id,
        questionId: q.id,
        questionType: q.question_type,
        text: `draft-marker-${tag}`,
        files: [],
      });
      const a = answered.questions[0]!;
      const view = await t.services.rfiAnswers.submit({
        rfiId: answered.id,
        questionId: a.id,
        questionType: a.question_type,
        text: `answer-marker-${tag}`,
        files: [],
      });
      await until('the answer sent', () => t.services.rfiAnswers.outbox.get(view.id)?.state === 'sent');
      await t.services.rfis.refresh(answered.id, 'refresh');
      await t.services.rfiAnswers.outbox.idle();

      // The cache holds the RFI (read back through the codec), the disk does not show it.
      expect((await t.services.rfis.get(described.id)).rfi.description).toBe(`description-marker-${tag}`);
      for (const marker of ['description-marker-', 'draft-marker-', 'answer-marker-']) {
        expect(await containing(dataDir, `${marker}${tag}`), marker).toEqual([]);
      }
      // The files are really there, sealed.
      const outbox = await readFile(path.join(dataDir, 'rfi-answers', 'outbox.json'), 'utf8');
      expect(outbox.startsWith('{"tdAtRest":2')).toBe(true);
      const key = t.services.vault.dataKey()!;
      for (const form of [key.key.toString('base64'), key.key.toString('hex')]) {
        expect(await containing(dataDir, form)).toEqual([]);
      }
      // Decrypted, the sent answer keeps ids, status and times, not its text.
      const opened = JSON.parse(createAtRestCodec(key).open(outbox).text) as {
        entries: Array<Record<string, unknown>>;
      };
      expect(opened.entries).toHaveLength(1);
      expect(opened.entries[0]).toMatchObject({ id: view.id, state: 'sent', text: '', rfiId: answered.id });
      expect(typeof opened.entries[0]!['responseId']).toBe('string');
      expect(JSON.stringify(opened)).not.toContain(`answer-marker-${tag}`);
    } finally {
      await t.stop();
      await rm(path.dirname(dataDir), { recursive: true, force: true, maxRetries: 10 });
    }
  });

  it('a tampered draft file is moved aside and reported; nothing else is lost', async () => {
    const dataDir = path.join(await tempDir('td-at-rest-'), 'data');
    let t = await startServices({ dataDir, rfis: { autoStart: false } });
    try {
      const r1 = await newRfi(t.services, 'one');
      const r2 = await newRfi(t.services, 'two');
      const save = (rfi: typeof r1, text: string) =>
        t.services.rfiAnswers.saveDraft({
          rfiId: rfi.id,
          questionId: rfi.questions[0]!.id,
          questionType: rfi.questions[0]!.question_type,
          text,
          files: [],
        });
      await save(r1, 'first draft');
      const before = new Set(await readdir(path.join(dataDir, 'rfi-answers', 'drafts')));
      await save(r2, 'second draft');
      const [tampered] = (await readdir(path.join(dataDir, 'rfi-answers', 'drafts'))).filter(
        (n) => !before.has(n),
      );
      await t.stop();

      // Flip one byte inside the ciphertext of r2's drafts.
      const file = path.join(dataDir, 'rfi-answers', 'drafts', tampered!);
      const env = JSON.parse(await readFile(file, 'utf8')) as Record<string, string | number>;
      const data = Buffer.from(env['data'] as string, 'base64');
      data[3] = data[3]! ^ 0x20;
      await writeFile(file, JSON.stringify({ ...env, data: data.toString('base64') }));

      t = await startServices({ dataDir, rfis: { autoStart: false } });
      expect(Object.values(await t.services.rfiAnswers.drafts.get(r1.id)).map((d) => d.text)).toEqual([
        'first draft',
      ]);
      expect(await t.services.rfiAnswers.drafts.get(r2.id)).toEqual({});
      const problems = t.services.stores.problems();
      expect(problems).toHaveLength(1);
      expect(problems[0]!.message).toMatch(/could not be read .*integrity check/);
      expect(problems[0]!.movedTo).toMatch(/corrupt-/);
      // The bytes are kept aside, not deleted.
      await stat(path.join(dataDir, problems[0]!.movedTo!));
      expect((await t.services.settingsView()).problems).toHaveLength(1);
    } finally {
      await t.stop();
      await rm(path.dirname(dataDir), { recursive: true, force: true, maxRetries: 10 });
    }
  });

  it('a tampered RFI cache file (the snapshot a full sync wrote) is moved aside and reported', async () => {
    const dataDir = path.join(await tempDir('td-at-rest-'), 'data');
    let t = await startServices({ dataDir, rfis: { autoStart: false } });
    try {
      const rfi = await newRfi(t.services, 'cached');
      await t.services.rfis.sync('sync', true);
      await t.stop();
      const shard = (await filesUnder(path.join(dataDir, 'rfis'))).find(
        (f) => /snapshot\.json$/.test(f.file) && f.bytes.length > 0,
      )!;
      const env = JSON.parse(shard.bytes.toString('utf8')) as Record<string, string | number>;
      const tag = Buffer.from(env['tag'] as string, 'base64');
      tag[0] = tag[0]! ^ 1;
      await writeFile(shard.file, JSON.stringify({ ...env, tag: tag.toString('base64') }));

      t = await startServices({ dataDir, rfis: { autoStart: false } });
      await t.services.rfis.counts();
      const problems = t.services.stores.problems();
      expect(problems).toHaveLength(1);
      expect(problems[0]!.file).toMatch(/^rfis\/.*snapshot\.json$/);
      expect(problems[0]!.message).toMatch(/integrity check/);
      await stat(path.join(dataDir, problems[0]!.movedTo!)); // kept aside, not deleted
      // (The embedded sandbox starts afresh with the services, so its RFI is not there to refill.)
      await t.services.rfis.sync('sync');
      await expect(t.services.rfis.get(rfi.id)).rejects.toMatchObject({ kind: 'not_found' });
      expect(t.services.stores.problems()).toHaveLength(1);
    } finally {
      await t.stop();
      await rm(path.dirname(dataDir), { recursive: true, force: true, maxRetries: 10 });
    }
  });

  it('a tampered outbox is moved aside and reported', async () => {
    const dataDir = path.join(await tempDir('td-at-rest-'), 'data');
    let t = await startServices({ dataDir, rfis: { autoStart: false } });
    try {
      const rfi = await newRfi(t.services, 'x');
      const v = await t.services.rfiAnswers.submit({
        rfiId: rfi.id,
        questionId: rfi.questions[0]!.id,
        questionType: rfi.questions[0]!.question_type,
        text: 'an answer',
        files: [],
      });
      await until('sent', () => t.services.rfiAnswers.outbox.get(v.id)?.state === 'sent');
      await t.services.rfiAnswers.outbox.idle();
      await t.stop();
      const file = path.join(dataDir, 'rfi-answers', 'outbox.json');
      const sealed = await readFile(file, 'utf8');
      await writeFile(file, sealed.slice(0, Math.floor(sealed.length / 2))); // truncated
      t = await startServices({ dataDir, rfis: { autoStart: false } });
      expect(t.services.rfiAnswers.outbox.list()).toEqual([]);
      const problems = t.services.stores.problems();
      expect(problems.map((p) => p.file)).toEqual(['rfi-answers/outbox.json']);
      expect(problems[0]!.message).toMatch(/outbox .* could not be read .*truncated/);
    } finally {
      await t.stop();
      await rm(path.dirname(dataDir), { recursive: true, force: true, maxRetries: 10 });
    }
  });

  it('plain files from before are read, then rewritten sealed; without a keychain it stays plain and says so', async () => {
    const dataDir = path.join(await tempDir('td-at-rest-'), 'data');
    // A run without a keychain writes plain text (and says so).
    let t = await startServices({
      dataDir,
      rfis: { autoStart: false },
      keyring: unavailableKeyringBackend(),
    });
    const tag = randomUUID().replace(/-/g, '');
    try {
      expect(t.services.vault.status()).toMatchObject({ backend: 'memory', dataAtRest: 'unencrypted' });
      expect((await t.services.settingsView()).vault.dataAtRest).toBe('unencrypted');
      const rfi = await newRfi(t.services, 'plain');
      await t.services.rfiAnswers.saveDraft({
        rfiId: rfi.id,
        questionId: rfi.questions[0]!.id,
        questionType: rfi.questions[0]!.question_type,
        text: `plain-draft-${tag}`,
        files: [],
      });
      await t.services.vault.set('sandbox', t.services.sandbox!.fixtures.legal_entities[0]!.tokens.admin!);
      expect(await containing(dataDir, `plain-draft-${tag}`)).toHaveLength(1);
      await t.stop();

      // A draft file from before bank scoping (named by the RFI id alone) and plain.
      const legacyRfi = 'rfi_legacy_0000000001';
      const legacyName = `${createHash('sha256').update(legacyRfi).digest('hex').slice(0, 32)}.json`;
      await mkdir(path.join(dataDir, 'rfi-answers', 'drafts'), { recursive: true });
      await writeFile(
        path.join(dataDir, 'rfi-answers', 'drafts', legacyName),
        JSON.stringify({
          version: 1,
          rfiId: legacyRfi,
          drafts: {
            q_1: { questionType: 'transaction.purpose', text: `legacy-${tag}`, files: [], updatedAt: 'x' },
          },
        }),
      );

      // With the keychain: both are read, and rewritten sealed.
      t = await startServices({ dataDir, rfis: { autoStart: false } });
      expect(t.services.vault.status().dataAtRest).toBe('encrypted');
      expect(await containing(dataDir, `plain-draft-${tag}`)).toEqual([]);
      const d = await t.services.rfiAnswers.drafts.get(rfi.id);
      expect(Object.values(d).map((x) => x.text)).toEqual([`plain-draft-${tag}`]);
      expect((await t.services.rfiAnswers.drafts.get(legacyRfi))['q_1']?.text).toBe(`legacy-${tag}`);
      await t.services.rfiAnswers.saveDraft({
        rfiId: legacyRfi,
        questionId: 'q_1',
        questionType: 'transaction.purpose',
        text: `legacy-${tag} edited`,
        files: [],
      });
      expect(await containing(dataDir, `legacy-${tag}`)).toEqual([]);
      expect(t.services.stores.problems()).toEqual([]);
    } finally {
      await t.stop();
      await rm(path.dirname(dataDir), { recursive: true, force: true, maxRetries: 10 });
    }
  });

  it('an RFI cache from before origin scoping is adopted and sealed, not left behind in plain text', async () => {
    const dataDir = path.join(await tempDir('td-at-rest-'), 'data');
    const sandbox = await startSandbox({ visibilityDelayMs: { min: 0, max: 0 } });
    const token = sandbox.fixtures.legal_entities[0]!.tokens.admin!;
    const environment = { kind: 'remote' as const, baseUrl: sandbox.url, token };
    const tag = randomUUID().replace(/-/g, '');
    // Written without a keychain: plain files.
    let t = await startServices({
      dataDir,
      environment,
      rfis: { autoStart: false },
      keyring: unavailableKeyringBackend(),
    });
    try {
      const res = await fetch(`${sandbox.url}/v1/sandbox/rfis`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...sandbox.controlHeaders() },
        body: JSON.stringify({
          type: 'account',
          related_id: sandbox.fixtures.legal_entities[0]!.accounts[0]!.id,
          description: `cached-marker-${tag}`,
          questions: [{ question_type: 'transaction.purpose', question_text: 'Why?' }],
        }),
      });
      const rfi = (await res.json()) as { id: string };
      await t.services.session.check();
      await t.services.rfis.sync('sync', true);
      const profileId = t.services.session.profile.id;
      await t.stop();

      // Move the cache to where it lived before the folder named the origin.
      const segment = (v: string): string =>
        `${v.replace(/[^A-Za-z0-9._-]/g, '_').slice(0, 40)}-${createHash('sha256').update(v).digest('hex').slice(0, 8)}`;
      const scoped = path.join(dataDir, 'rfis', segment(`${profileId}@${new URL(sandbox.url).origin}`));
      const [le] = await readdir(scoped);
      const legacy = path.join(dataDir, 'rfis', segment(profileId));
      await mkdir(legacy, { recursive: true });
      await rename(path.join(scoped, le!), path.join(legacy, le!));
      expect(await containing(legacy, `cached-marker-${tag}`)).not.toEqual([]);

      t = await startServices({ dataDir, environment, rfis: { autoStart: false } });
      expect(t.services.vault.status().dataAtRest).toBe('encrypted');
      await t.services.session.check();
      expect((await t.services.rfis.get(rfi.id)).rfi.description).toBe(`cached-marker-${tag}`);
      await t.services.rfis.sync('sync');
      expect(await containing(dataDir, `cached-marker-${tag}`)).toEqual([]);
      expect(t.services.stores.problems()).toEqual([]);
    } finally {
      await t.stop();
      await sandbox.close();
      await rm(path.dirname(dataDir), { recursive: true, force: true, maxRetries: 10 });
    }
  });

  it('staged copies of dropped files are deleted once sent, and when an answer is dismissed', async () => {
    const dataDir = path.join(await tempDir('td-at-rest-'), 'data');
    const t = await startServices({ dataDir, rfis: { autoStart: false } });
    const staging = path.join(dataDir, 'rfi-answers', 'staging');
    const drop = async (): Promise<string> => {
      const files = t.services.rfiAnswers.files;
      const id = await files.begin({
        name: 'proof.pdf',
        contentType: 'application/pdf',
        sizeBytes: pdf.length,
        documentType: 'proof_of_address',
      });
      await files.chunk(id, 0, pdf.toString('base64'));
      return (await files.commit(id)).ref;
    };
    try {
      const rfi = await newRfi(t.services, 'docs', 'identification.individual.proof_of_address');
      const q = rfi.questions[0]!;
      const ref = await drop();
      expect(await readdir(staging)).toEqual([`${ref}.bin`]);
      // The registry of added files (names, paths) is sealed too.
      const registry = await readFile(path.join(dataDir, 'rfi-answers', 'files.json'), 'utf8');
      expect(registry.startsWith('{"tdAtRest":2')).toBe(true);
      expect(registry).not.toContain('proof.pdf');
      const v = await t.services.rfiAnswers.submit({
        rfiId: rfi.id,
        questionId: q.id,
        questionType: q.question_type,
        text: '',
        files: [ref],
      });
      await until('sent', () => t.services.rfiAnswers.outbox.get(v.id)?.state === 'sent');
      await until('staged copy removed', async () => (await readdir(staging)).length === 0);
      // The sent entry keeps the bank's document id, not the file's name, ref or upload URL.
      const sent = t.services.rfiAnswers.outbox.get(v.id)!;
      expect(sent.documents).toEqual([
        expect.objectContaining({ ref: '', name: '', url: null, documentId: expect.any(String) }),
      ]);
      const sealed = await readFile(path.join(dataDir, 'rfi-answers', 'outbox.json'), 'utf8');
      const plain = createAtRestCodec(t.services.vault.dataKey()).open(sealed).text;
      expect(plain).not.toContain('proof.pdf');
      expect(plain).not.toContain(ref);

      // An answer the bank refuses (no such RFI) and that the analyst dismisses.
      const ref2 = await drop();
      const failed = await t.services.rfiAnswers.submit({
        rfiId: 'rfi_does_not_exist_000',
        questionId: 'rfq_none',
        questionType: q.question_type,
        text: '',
        files: [ref2],
      });
      await until('failed', () => t.services.rfiAnswers.outbox.get(failed.id)?.state === 'failed');
      await t.services.rfiAnswers.discardDraft('rfi_does_not_exist_000', 'rfq_none');
      expect(await readdir(staging)).toEqual([`${ref2}.bin`]); // still in the outbox entry
      await t.services.rfiAnswers.dismiss(failed.id);
      expect(await readdir(staging)).toEqual([]);
    } finally {
      await t.stop();
      await rm(path.dirname(dataDir), { recursive: true, force: true, maxRetries: 10 });
    }
  });
});
