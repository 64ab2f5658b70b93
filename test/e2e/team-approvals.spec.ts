import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import pg from 'pg';
import { test, expect } from './fixtures';
import { staffOf } from '../support/sandbox-staff';
import { teamSpec, twoAnalysts } from './team-stations';
import { customerResponses, writePdf, type WireRfi } from './rfi-workspace-support';

/**
 * Four-eyes approval from the analysts' side: two workstations (two harness instances, each with
 * its own data folder and keychain entries) against one sandbox bank and one team server on real
 * PostgreSQL. Maria (an admin) sets the rule in Settings → Team, drafts an answer with a document
 * and asks for approval; her own approval is refused by the server; Jonas reviews the document's
 * sha256 and approves; Maria changes the document, which clears the approval; Jonas approves the
 * new one; Maria sends it, and the bank holds exactly one response with that document's sha256.
 */

const spec = teamSpec('team_approvals_e2e');

const sha256Of = async (file: string): Promise<string> =>
  createHash('sha256')
    .update(await readFile(file))
    .digest('hex');

test('a maker asks, a checker approves, an edit clears it, and the bank holds one response with the approved document', async ({
  browser,
}) => {
  test.setTimeout(180_000);
  // Maria may check too: only the server stops her approving her own answer.
  const { cluster, team } = spec.stack();
  const { maria, jonas, sandbox, le } = await twoAnalysts(browser, team, spec.stations, {
    mariaRoles: ['maker', 'checker', 'admin'],
  });

  // The admin's rule: every answer needs a checker. Jonas reads it in words.
  const rules = maria.page.getByTestId('approval-rules');
  await rules.getByText('Every RFI answer needs a checker').click();
  await rules.getByRole('button', { name: 'Save approval rules' }).click();
  await expect(rules.getByText('Approval rules saved.')).toBeVisible();
  await expect(jonas.page.getByTestId('approval-rules')).toContainText('Every RFI answer needs a checker.');
  await expect(jonas.page.getByTestId('approval-rules')).toContainText('Only an admin of');

  const bankGet = async (p: string): Promise<WireRfi> => {
    const r = await fetch(`${sandbox.url}${p}`, { headers: { authorization: `Bearer ${le.tokens.admin}` } });
    return (await r.json()) as WireRfi;
  };
  const rfiId = le.rfi_ids[0]!; // transaction: purpose (text) + supporting documents
  const qDoc = (await bankGet(`/v1/rfis/${rfiId}`)).questions[1]!;

  // Maria drafts the answer with a document: Send has become "Ask for approval".
  const firstPdf = path.join(maria.harness.dataDir, '..', 'approval-invoice.pdf');
  await writePdf(firstPdf, 30_000);
  await maria.page.goto(`${maria.harness.url}#/rfis/${rfiId}`);
  const mq = maria.page.getByTestId(`question-${qDoc.id}`);
  maria.harness.platform.nextDialogAnswers.push([firstPdf]);
  await mq.getByRole('button', { name: 'Choose files…' }).click();
  await expect(mq.getByTestId('answer-files')).toContainText('approval-invoice.pdf');
  await expect(mq.getByTestId('answer-submit')).toHaveText('Ask for approval');
  await mq.getByTestId('answer-submit').click();
  await expect(mq.getByTestId('answer-approval')).toHaveText('Waiting for approval by a checker.');
  // Her own answer: no Approve for her, and the server refuses it when asked all the same.
  await expect(mq.getByRole('button', { name: 'Approve' })).toHaveCount(0);
  const [mine] = await maria.harness.services.handlers['team.approvals']({ rfiId });
  await expect(
    maria.harness.services.handlers['team.decideApproval']({
      profileId: maria.harness.services.session.profile.id,
      rfiId,
      questionId: qDoc.id,
      approvalId: mine!.approvalId!,
      decision: 'approve',
      contentHash: mine!.contentHash,
    }),
  ).rejects.toMatchObject({ message: expect.stringContaining('nobody approves their own answer') });

  // Jonas sees it waiting for him in the queue, reviews the document's sha256 and approves.
  await jonas.page.goto(`${jonas.harness.url}#/rfis`);
  await jonas.page.getByTestId('approvals-waiting').getByRole('link').click();
  const jq = jonas.page.getByTestId(`question-${qDoc.id}`);
  await expect(jq.getByTestId('answer-approval')).toHaveText('Maria Keller asks for your approval.');
  await expect(jq.getByTestId('approval-content')).toContainText(await sha256Of(firstPdf));
  await jq.getByRole('button', { name: 'Approve' }).click();
  await expect(mq.getByTestId('answer-approval')).toHaveText('Approved by Jonas Weber.');
  await expect(mq.getByTestId('answer-submit')).toHaveText('Send approved answer');

  // An edit after approval: another document. The approval no longer covers it.
  const secondPdf = path.join(maria.harness.dataDir, '..', 'approval-invoice-2.pdf');
  await writePdf(secondPdf, 31_000);
  await mq.getByRole('button', { name: 'Remove approval-invoice.pdf' }).click();
  maria.harness.platform.nextDialogAnswers.push([secondPdf]);
  await mq.getByRole('button', { name: 'Choose files…' }).click();
  await expect(mq.getByTestId('answer-files')).toContainText('approval-invoice-2.pdf');
  await expect(mq.getByTestId('answer-approval')).toHaveText('Waiting for approval by a checker.', {
    timeout: 15_000,
  });
  await expect(mq.getByTestId('answer-submit')).toHaveText('Ask for approval');
  const db = new pg.Client({ connectionString: cluster.url });
  await db.connect();
  try {
    const rows = await db.query<{ status: string }>(
      'SELECT status FROM approvals WHERE legal_entity_id = $1 AND object_id = $2 ORDER BY requested_at',
      [le.id, qDoc.id],
    );
    expect(rows.rows.map((r) => r.status)).toEqual(['cleared', 'pending']);

    await expect(jq.getByTestId('approval-content')).toContainText(await sha256Of(secondPdf));
    await jq.getByRole('button', { name: 'Approve' }).click();
    await expect(mq.getByTestId('answer-submit')).toHaveText('Send approved answer');
    await mq.getByTestId('answer-submit').click();
    await expect(mq.getByTestId('answer-status')).toHaveAttribute('data-state', 'sent', { timeout: 20_000 });

    const jobs = await db.query<{ status: string; bank_reference: string }>(
      'SELECT status, bank_reference FROM send_jobs WHERE legal_entity_id = $1 AND object_id = $2',
      [le.id, qDoc.id],
    );
    expect(jobs.rows).toHaveLength(1);
    expect(jobs.rows[0]!.status).toBe('done');
  } finally {
    await db.end();
  }

  // The bank holds exactly one response, with the approved document.
  const responses = customerResponses(await bankGet(`/v1/rfis/${rfiId}`), qDoc.id);
  expect(responses).toHaveLength(1);
  const documentId = responses[0]!.response['transaction.supporting_documents']!.document_ids[0]!;
  expect((await staffOf(maria.harness.services).getDocument(documentId)).sha256).toBe(
    await sha256Of(secondPdf),
  );

  // The four-eyes trail is in the team log Maria reads: her ask, Jonas's approval, the send.
  await maria.page.goto(`${maria.harness.url}#/activity`);
  const rows = maria.page.getByTestId('team-activity').getByTestId('team-activity-entry');
  await expect(rows.filter({ hasText: 'Approved the answer made by Maria Keller' }).first()).toContainText(
    'Jonas Weber',
  );
  await expect(rows.filter({ hasText: 'Asked a checker to approve the answer' }).first()).toContainText(
    'You',
  );
  await expect(rows.filter({ hasText: 'Sent the approved answer to the bank' })).toHaveCount(1);
});
