/**
 * What the team shares, through the real main services (createServices with the embedded sandbox
 * and the real keychain) against the real team server, PostgreSQL and OpenID provider: a document
 * of the analyst's own locker shared to the team (bytes by sha256 in PostgreSQL), a colleague's
 * shared document staged for an answer with the same sha256, notes both ways (one written while
 * the team server is away waits as pending, then lands once), presence from the change stream,
 * and the team activity log with names and its hash chain checked here, broken when an entry is
 * changed behind the server's back.
 */
import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { mkdtemp, readFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { inject } from 'vitest';
import { napiKeyringBackend } from '../../src/main/infra/keyring';
import { startTeamServer, type RunningTeamServer } from '../../src/team-server/index';
import { writePdf } from '../e2e/rfi-workspace-support';
import { pdfText } from '../support/pdf-text';
import { startServices, type TestServices } from '../support/services';
import { startTeamStack, type TeamStack } from './support';
import { browseSignIn, PASSWORDS, seedSandboxTeam } from './workstation-support';

const keyringService = `treasury-desk-team-share-test/${randomBytes(6).toString('hex')}`;
const keyring = napiKeyringBackend();
let stack: TeamStack;
let app: TestServices;
let entity: string;
let rfiId: string;
let questionId: string;
let profileId: string;
let restarted: RunningTeamServer | null = null;
let tmp: string;

const sha = (b: Uint8Array): string => createHash('sha256').update(b).digest('hex');

beforeAll(async () => {
  tmp = await mkdtemp(path.join(os.tmpdir(), 'td-team-share-'));
  stack = await startTeamStack();
  app = await startServices({
    keyringService,
    team: {
      feedRetry: { baseMs: 100, maxMs: 400 },
      outboxRetry: { baseMs: 100, maxMs: 400 },
      signInTimeoutMs: 20_000,
    },
  });
  const h = app.services.handlers;
  await app.services.session.check();
  const scope = app.services.session.current.scope();
  entity = scope.legalEntityId!;
  profileId = scope.profileId;
  await seedSandboxTeam(stack.server.db, entity, app.services.session.current.entityName());
  for (let i = 0; i < 200 && (await h['rfis.list'](undefined)).items.length < 1; i += 1)
    await new Promise((r) => setTimeout(r, 100));
  const rfis = (await h['rfis.list'](undefined)).items;
  const detail = await h['rfis.get']({ profileId, id: rfis[0]!.id });
  rfiId = detail.rfi.id;
  questionId = detail.rfi.questions[0]!.id;

  app.platform.nextConfirmAnswers.push(true);
  await h['team.setServer']({ url: stack.server.url });
  const browsed: Promise<number>[] = [];
  app.platform.onOpenExternal = (url) =>
    browsed.push(browseSignIn(url, 'maria.keller', PASSWORDS['maria.keller']));
  await h['team.signIn'](undefined);
  if ((await Promise.all(browsed)).join() !== '200') throw new Error('the sign-in page did not answer 200');
  for (let i = 0; i < 200 && (await h['team.status'](undefined)).connection !== 'connected'; i += 1)
    await new Promise((r) => setTimeout(r, 100));
  if ((await h['team.status'](undefined)).connection !== 'connected')
    throw new Error('the team did not connect');
}, 90_000);

afterAll(async () => {
  await app?.close();
  await restarted?.close();
  await stack?.close().catch(() => undefined);
  await keyring.delete(keyringService, 'team-refresh-token').catch(() => false);
});

describe('the shared evidence locker on the workstation', () => {
  it('shares a document of the own locker by its sha256, and lists it with who added it', async () => {
    const h = app.services.handlers;
    const file = path.join(tmp, 'registry-extract.pdf');
    await writePdf(file, 8_000);
    app.platform.nextDialogAnswers.push([file]);
    const added = await h['locker.add']({
      source: { from: 'picker' },
      documentType: 'business_registry_extract',
      holder: { kind: 'company', name: 'Alder Trade GmbH' },
      expiresOn: '2030-01-31',
    });
    const lockerId = added.document!.id;
    const shared = await h['team.shareEvidence']({ lockerId, profileId });
    const want = sha(await readFile(file));
    expect(shared).toMatchObject({
      sha256: want,
      pending: false,
      addedBy: { name: 'Maria Keller', isYou: true },
    });
    const row = await stack.sql.query<{ same: boolean; uploaded_by: string; expires_on: string }>(
      `SELECT encode(sha256(b.bytes), 'hex') = d.sha256 AS same, d.uploaded_by, d.expires_on::text
       FROM evidence_documents d JOIN evidence_blobs b USING (sha256) WHERE d.id = $1`,
      [shared.id],
    );
    expect(row.rows).toEqual([{ same: true, uploaded_by: 'maria.keller', expires_on: '2030-01-31' }]);
    const { entities } = await h['team.sharedEvidence'](undefined);
    expect(entities).toHaveLength(1);
    expect(entities[0]).toMatchObject({ legalEntityId: entity, canShare: true, offline: false });
    expect(entities[0]!.documents.map((d) => [d.fileName, d.holder.name, d.addedBy.name])).toEqual([
      ['registry-extract.pdf', 'Alder Trade GmbH', 'Maria Keller'],
    ]);
  });

  it('stages a colleague’s shared document for an answer with the sha256 the team server names', async () => {
    const h = app.services.handlers;
    const file = path.join(tmp, 'passport.pdf');
    await writePdf(file, 5_000);
    const bytes = await readFile(file);
    const jonas = stack.as('jonas.weber');
    const put = await fetch(`${stack.server.url}/v1/entities/${entity}/evidence/blobs/${sha(bytes)}`, {
      method: 'PUT',
      headers: { authorization: `Bearer ${jonas.token}`, 'content-type': 'application/pdf' },
      body: bytes,
    });
    expect(put.status).toBe(201);
    const docId = randomUUID();
    const made = await jonas.post(`/v1/entities/${entity}/evidence`, {
      id: docId,
      sha256: sha(bytes),
      fileName: 'passport.pdf',
      documentType: 'passport',
      holder: { kind: 'person', name: 'Anna Meyer' },
    });
    expect(made.status).toBe(201);
    // The change feed brings it; it is listed under Jonas's name.
    await expect
      .poll(
        async () =>
          (await h['team.sharedEvidence'](undefined)).entities[0]!.documents.find((d) => d.id === docId)
            ?.addedBy,
      )
      .toEqual({ subject: 'jonas.weber', name: 'Jonas Weber', isYou: false });
    const staged = await h['team.attachEvidence']({ documentId: docId, rfiId, questionId, profileId });
    expect(staged).toMatchObject({
      name: 'passport.pdf',
      sizeBytes: bytes.length,
      contentType: 'application/pdf',
    });
    // The staged copy is exactly the shared bytes.
    const reader = await app.services.rfiAnswers.files.open(staged.ref);
    const chunks: Buffer[] = [];
    for await (const c of reader.chunks()) chunks.push(c);
    expect(sha(Buffer.concat(chunks))).toBe(sha(bytes));
    // The team's log says which shared document went into which RFI.
    await expect
      .poll(async () =>
        (await h['team.activity']({ rfiId, profileId }))!.entries.map((e) => [e.action, e.actor.name]),
      )
      .toContainEqual(['evidence.used', 'Maria Keller']);
  });
});

describe('notes, presence and the team activity log on the workstation', () => {
  it('shows a colleague’s note and presence from the change stream, and sends its own', async () => {
    const h = app.services.handlers;
    const mine = await h['team.addNote']({
      rfiId,
      profileId,
      text: 'Customer called; passport comes Monday.',
    });
    expect(mine).toMatchObject({ pending: false, author: { name: 'Maria Keller', isYou: true } });
    const jonas = stack.as('jonas.weber');
    expect(
      (
        await jonas.post(`/v1/entities/${entity}/notes`, {
          id: randomUUID(),
          object: { kind: 'rfi', id: rfiId },
          text: 'Checked against the registry.',
        })
      ).status,
    ).toBe(201);
    expect(
      (await jonas.put(`/v1/entities/${entity}/presence`, { object: { kind: 'rfi', id: rfiId } })).status,
    ).toBe(200);
    await expect
      .poll(async () => {
        const r = await h['team.notes']({ rfiId, profileId });
        return { notes: r.notes.map((n) => [n.author.name, n.text]), present: r.present.map((p) => p.name) };
      })
      .toEqual({
        notes: [
          ['Maria Keller', 'Customer called; passport comes Monday.'],
          ['Jonas Weber', 'Checked against the registry.'],
        ],
        present: ['Jonas Weber'],
      });
    expect(app.pushed).toContainEqual({
      event: 'team.shared',
      payload: { legalEntityId: entity, topic: 'presence', rfiId, notice: null },
    });
  });

  it('a note written while the team server is away is pending, then lands once', async () => {
    const h = app.services.handlers;
    const port = Number(new URL(stack.server.url).port);
    await stack.server.close();
    await expect.poll(async () => (await h['team.status'](undefined)).connection).toBe('unreachable');
    const waiting = await h['team.addNote']({ rfiId, profileId, text: 'Written on the train.' });
    expect(waiting).toMatchObject({ pending: true, author: { isYou: true } });
    expect(app.services.teamShare.outbox.queue.all().map((j) => j.what)).toEqual(['note']);
    const offline = await h['team.notes']({ rfiId, profileId });
    expect(offline.offline).toBe(true);
    expect(offline.notes.at(-1)).toMatchObject({ text: 'Written on the train.', pending: true });

    restarted = await startTeamServer({
      databaseUrl: stack.databaseUrl,
      auth: { issuer: inject('teamIssuer'), audience: inject('teamAudience') },
      port,
    });
    app.platform.fire('online');
    await expect.poll(() => app.services.teamShare.outbox.queue.all().length, { timeout: 15_000 }).toBe(0);
    const rows = await stack.sql.query('SELECT author FROM internal_notes WHERE id = $1', [waiting.id]);
    expect(rows.rows).toEqual([{ author: 'maria.keller' }]);
    expect((await h['team.notes']({ rfiId, profileId })).notes.at(-1)).toMatchObject({
      id: waiting.id,
      pending: false,
    });
  });

  it('lists the team log with names, checks its hash chain, and says where an entry was changed', async () => {
    const h = app.services.handlers;
    const log = await h['team.activity']({ profileId });
    expect(log).toMatchObject({ legalEntityId: entity, chain: { intact: true, brokenAt: null } });
    const words = log!.entries.map((e) => `${e.actor.name}: ${e.words}`);
    expect(words).toContain('Maria Keller: Shared a Business registry extract with the team');
    expect(words).toContain('Jonas Weber: Wrote a note on the RFI');
    // The Activity CSV carries the team's entries after the local ones, marked as the team log's.
    const csvFile = path.join(tmp, 'activity.csv');
    app.platform.nextSaveAnswers.push(csvFile);
    await h['audit.exportCsv'](undefined);
    const csv = await readFile(csvFile, 'utf8');
    expect(csv).toContain(`"Team log (${log!.legalEntityName})","note.added"`);
    expect(csv).toContain('"Jonas Weber"');
    expect(csv).toContain('"Wrote a note on the RFI"');
    // The RFI's case file carries the team's part too: who did what, by name, and the chain's state.
    const caseFile = async (name: string): Promise<string> => {
      app.platform.nextSaveAnswers.push(path.join(tmp, `${name}.pdf`));
      const r = await h['caseFiles.export']({ rfis: [{ profileId, rfiId }], zip: false });
      return (await pdfText(r.path!)).replace(/\s+/g, ' ');
    };
    const intact = await caseFile('intact');
    expect(intact).toContain('From the team log');
    expect(intact).toContain('Jonas Weber: Wrote a note on the RFI');
    expect(intact).toContain(log!.chain.words);
    // Someone able to switch the guard off edits an entry: the workstation says where it breaks.
    const target = log!.entries.find((e) => e.action === 'note.added')!;
    await stack.sql.query(
      `BEGIN; SET LOCAL session_replication_role = replica;
       UPDATE activity_log SET actor = 'lea.fischer' WHERE seq = ${target.seq}; COMMIT;`,
    );
    const broken = await h['team.activity']({ profileId });
    expect(broken!.chain).toMatchObject({ intact: false, brokenAt: target.seq });
    expect(broken!.chain.words).toContain(`broken at entry ${target.seq}`);
    expect(await caseFile('broken')).toContain(`broken at entry ${target.seq}`);
  });
});
