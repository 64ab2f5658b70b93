/**
 * The maker's workstation that test/team/send-kill.test.ts kills with SIGKILL mid-send: the real
 * services on a data folder where the analyst signed in to the team before (the refresh token is
 * in the keychain) and saved the approved draft. It waits until the team connection is up and the
 * approval covers the draft, sends the answer (the send job is leased to this workstation and the
 * bank outbox posts it), prints SUBMITTED and keeps running until it is killed.
 *
 * Config comes as JSON in TD_SEND_KILL_WORKER; bundled and run by the test.
 */
import { writeSync } from 'node:fs';
import { createLogger, memorySink } from '../../src/main/infra/log';
import { createHeadlessPlatform } from '../../src/main/infra/platform';
import { createServices } from '../../src/main/services';

export interface SendKillWorkerConfig {
  dataDir: string;
  keyringService: string;
  bankUrl: string;
  token: string;
  rfiId: string;
  questionId: string;
  questionType: string;
  text: string;
}

const out = (line: string): void => {
  writeSync(1, `${line}\n`);
};

async function main(): Promise<void> {
  const cfg = JSON.parse(process.env.TD_SEND_KILL_WORKER ?? '{}') as SendKillWorkerConfig;
  const services = await createServices({
    dataDir: cfg.dataDir,
    keyringService: cfg.keyringService,
    platform: createHeadlessPlatform(),
    log: createLogger(memorySink(), 'info'),
    environment: { kind: 'remote', baseUrl: cfg.bankUrl, name: 'Bank', token: cfg.token },
    bankRetry: { baseDelayMs: 20, maxDelayMs: 100 },
    team: { feedRetry: { baseMs: 100, maxMs: 400 }, outboxRetry: { baseMs: 100, maxMs: 400 } },
  });
  await services.session.check();
  const h = services.handlers;
  const ref = { rfiId: cfg.rfiId, questionId: cfg.questionId, profileId: services.session.profile.id };
  const deadline = Date.now() + 30_000;
  for (;;) {
    const connected = (await h['team.status'](undefined)).connection === 'connected';
    if (connected && (await h['team.answerApproval'](ref)).covers) break;
    if (Date.now() > deadline) throw new Error('the team connection or the approval did not come');
    await new Promise((r) => setTimeout(r, 100));
  }
  const answer = await h['answers.submit']({
    ...ref,
    questionType: cfg.questionType,
    text: cfg.text,
    files: [],
  });
  out(`SUBMITTED ${answer.id}`);
  // Running until killed: the bank's answer to the POST never comes back.
  setInterval(() => undefined, 60_000);
}

main().catch((err: unknown) => {
  out(`FAILED ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`);
  process.exit(1);
});
