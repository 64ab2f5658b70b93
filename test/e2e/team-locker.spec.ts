import { createHash } from 'node:crypto';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { Page } from '@playwright/test';
import pg from 'pg';
import { test, expect } from './fixtures';
import { seriousA11yViolations } from './axe';
import { customerResponses, writePdf } from './rfi-workspace-support';
import type { WireRfi } from './rfi-workspace-support';
import { staffOf } from '../support/sandbox-staff';
import { teamSpec, twoAnalysts } from './team-stations';

/**
 * The team's shared evidence locker, notes, presence and activity log between two analysts'
 * workstations (two harness instances with their own data folders and keychain entries) against
 * one sandbox bank and one team server on real PostgreSQL. Maria shares a passport from her own
 * locker; Jonas answers an RFI with it from the team's locker, and the bank holds the same sha256
 * as Maria's file. Jonas's note and presence reach Maria's RFI detail; Maria's Activity shows the
 * team's entries with names, and the hash chain checked.
 */

const spec = teamSpec('team_locker_e2e');
let tmp: string;

test.beforeEach(async () => {
  tmp = await mkdtemp(path.join(os.tmpdir(), 'td-team-locker-e2e-'));
});

test.afterEach(async () => {
  await rm(tmp, { recursive: true, force: true });
});

async function choose(page: Page, label: string, option: string): Promise<void> {
  await page.getByRole('button', { name: new RegExp(`${label}$`) }).click();
  await page.getByRole('option', { name: option, exact: true }).click();
}

/** axe-core on the page as it is, in the light and the dark colour scheme: no serious violation. */
async function axeInBothSchemes(page: Page, what: string): Promise<void> {
  for (const colorScheme of ['light', 'dark'] as const) {
    await page.emulateMedia({ colorScheme });
    expect(await page.evaluate(() => matchMedia('(prefers-color-scheme: dark)').matches)).toBe(
      colorScheme === 'dark',
    );
    const violations = await seriousA11yViolations(page);
    expect(violations, `${what}, ${colorScheme}: ${JSON.stringify(violations, null, 2)}`).toEqual([]);
  }
  await page.emulateMedia({ colorScheme: null });
}

test('a passport shared by one analyst answers another analyst’s RFI with the same sha256 at the bank; notes, presence and the team log reach the other workstation', async ({
  browser,
}) => {
  test.setTimeout(180_000);
  const { cluster, team } = spec.stack();
  const { maria, jonas, sandbox, le } = await twoAnalysts(browser, team, spec.stations);

  // Maria adds a passport to her own locker (main's native picker) and shares it with the team.
  const passport = path.join(tmp, 'anna-meyer-passport.pdf');
  await writePdf(passport, 24_000);
  const passportSha = createHash('sha256')
    .update(await readFile(passport))
    .digest('hex');
  await maria.page.goto(`${maria.harness.url}#/locker`);
  const form = maria.page.getByRole('region', { name: 'Add a document' });
  await choose(maria.page, 'Document type', 'Passport');
  await form.getByRole('textbox', { name: 'Person’s name' }).fill('Anna Meyer');
  await form.getByRole('textbox', { name: 'Expires on' }).fill('2031-03-31');
  maria.harness.platform.nextDialogAnswers.push([passport]);
  await form.getByRole('button', { name: 'Choose a file and add it…' }).click();
  const own = maria.page
    .getByRole('list', { name: 'Locker documents' })
    .getByRole('listitem', { name: 'Passport of Anna Meyer' });
  await own.getByRole('button', { name: `Share with ${le.name}'s team` }).click();
  await expect(own.getByRole('status')).toHaveText(`Shared with ${le.name}'s team.`);

  // PostgreSQL holds the version and the bytes under Maria's name, by the file's sha256.
  const db = new pg.Client({ connectionString: cluster.url });
  await db.connect();
  try {
    const stored = await db.query<{ sha256: string; uploaded_by: string; same: boolean }>(
      `SELECT d.sha256, d.uploaded_by, encode(sha256(b.bytes), 'hex') = d.sha256 AS same
       FROM evidence_documents d JOIN evidence_blobs b ON b.sha256 = d.sha256 WHERE d.legal_entity_id = $1`,
      [le.id],
    );
    expect(stored.rows).toEqual([{ sha256: passportSha, uploaded_by: 'maria.keller', same: true }]);
  } finally {
    await db.end();
  }

  // Jonas sees it in the team's part of his Evidence locker: by holder, type and expiry in words,
  // and who added it.
  await jonas.page.goto(`${jonas.harness.url}#/locker`);
  const shared = jonas.page
    .getByRole('list', { name: `Documents shared at ${le.name}` })
    .getByRole('listitem', { name: 'Passport of Anna Meyer' });
  await expect(shared).toContainText('Valid until');
  await expect(shared).toContainText('anna-meyer-passport.pdf');
  await expect(shared.getByTestId('shared-item-added')).toContainText('Added by Maria Keller on');
  expect(await seriousA11yViolations(jonas.page)).toEqual([]);

  // A passport question; both analysts open the RFI.
  const rfi = await staffOf(maria.harness.services).createRfi({
    type: 'account',
    related_id: le.accounts[0]!.id,
    description: 'Director identification',
    questions: [
      { question_type: 'identification.individual.passport', question_text: 'Passport of the director' },
    ],
  });
  await maria.harness.services.rfis.sync('sync', true);
  await jonas.harness.services.rfis.sync('sync', true);
  const questionId = rfi.questions[0]!.id;
  await maria.page.goto(`${maria.harness.url}#/rfis/${rfi.id}`);
  await expect(maria.page.getByTestId('rfi-presence')).toHaveText(
    'Nobody else on the team has this RFI open.',
  );
  await jonas.page.goto(`${jonas.harness.url}#/rfis/${rfi.id}`);
  // Presence: Maria's detail says Jonas is there (his beat, pushed through the change stream).
  await expect(maria.page.getByTestId('rfi-presence')).toHaveText('Jonas Weber is viewing this RFI.', {
    timeout: 15_000,
  });

  // Jonas writes a note for the team; Maria's workstation shows it with his name.
  const note = 'The customer sent the passport to Maria; it is in the team locker.';
  await jonas.page.getByRole('textbox', { name: 'New note for the team' }).fill(note);
  await jonas.page.getByRole('button', { name: 'Add note' }).click();
  await expect(jonas.page.getByTestId('team-note')).toContainText(note);
  const seen = maria.page.getByTestId('team-note');
  await expect(seen).toContainText(note);
  await expect(seen).toContainText('Jonas Weber');
  await expect(seen).toContainText('wrote on');
  // The RFI detail's team notes and presence, on both workstations, in both colour schemes.
  await axeInBothSchemes(maria.page, 'Maria’s RFI detail with Jonas’s note and presence');
  await axeInBothSchemes(jonas.page, 'Jonas’s RFI detail with his note');

  // Jonas answers with the shared passport: main fetches it, checks its sha256, stages it for his
  // profile; his own credential uploads it to the bank.
  const q = jonas.page.getByTestId(`question-${questionId}`);
  await q.getByRole('button', { name: 'Use from the team’s locker…' }).click();
  await q
    .getByRole('list', { name: 'Documents shared with the team' })
    .getByRole('button', {
      name: 'Use Passport of Anna Meyer (anna-meyer-passport.pdf), shared by Maria Keller',
    })
    .click();
  await expect(q.getByTestId('answer-files')).toContainText('anna-meyer-passport.pdf');
  await q.getByTestId('answer-submit').click();
  await expect(q.getByTestId('answer-status')).toHaveAttribute('data-state', 'sent', { timeout: 20_000 });

  // The bank (its state over HTTP) holds one customer response whose document has Maria's sha256.
  const r = await fetch(`${sandbox.url}/v1/rfis/${rfi.id}`, {
    headers: { authorization: `Bearer ${le.tokens.admin}` },
  });
  const bank = (await r.json()) as WireRfi;
  const responses = customerResponses(bank, questionId);
  expect(responses).toHaveLength(1);
  const docIds = responses[0]!.response['identification.individual.passport']!.document_ids;
  expect(docIds).toHaveLength(1);
  expect((await staffOf(maria.harness.services).getDocument(docIds[0]!)).sha256).toBe(passportSha);

  // Maria's Activity: the team's entries beside her own, by name, marked as the team log's, and
  // the server's hash chain checked.
  await maria.page.goto(`${maria.harness.url}#/activity`);
  const log = maria.page.getByTestId('team-activity');
  await expect(log.getByRole('heading', { name: `From the team log: ${le.name}` })).toBeVisible();
  await expect(log.getByTestId('team-chain')).toContainText('checks out');
  const rows = log.getByTestId('team-activity-entry');
  await expect(rows.filter({ hasText: 'Shared a Passport with the team' })).toContainText('You');
  await expect(rows.filter({ hasText: 'Wrote a note on the RFI' })).toContainText('Jonas Weber');
  await expect(rows.filter({ hasText: 'Used a shared Passport in an answer' })).toContainText('Jonas Weber');
  await expect(rows.first()).toContainText('Team log #');
  await axeInBothSchemes(maria.page, 'Maria’s Activity with the team log');
  await jonas.page.goto(`${jonas.harness.url}#/activity`);
  await expect(
    jonas.page.getByTestId('team-activity').getByRole('heading', { name: `From the team log: ${le.name}` }),
  ).toBeVisible();
  await axeInBothSchemes(jonas.page, 'Jonas’s Activity with the team log');
});
