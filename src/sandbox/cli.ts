/**
 * `npm run sandbox -- --port 4010`: runs the sandbox bank until interrupted and prints its URL,
 * the control secret (random per run unless --control-secret or TREASURY_SANDBOX_CONTROL_SECRET
 * sets it), the seeded tokens and the webhook public key.
 */
import { parseCliOptions, usage } from './cli-options';
import { startSandbox } from './index';

async function main(): Promise<void> {
  let parsed;
  try {
    parsed = parseCliOptions(process.argv.slice(2), process.env);
  } catch (err) {
    console.error(err instanceof Error ? err.message : String(err));
    process.exit(2);
  }
  const { help, ...options } = parsed;
  if (help) {
    process.stdout.write(usage());
    return;
  }
  const sb = await startSandbox(options);
  const out: string[] = [];
  out.push(`Treasury Desk sandbox bank listening on ${sb.url}`);
  out.push('');
  out.push(`Control secret (header Sandbox-Control-Secret, for /v1/sandbox/*): ${sb.controlSecret}`);
  out.push('');
  for (const le of sb.fixtures.legal_entities) {
    out.push(`Legal entity ${le.name} (${le.id})`);
    out.push(`  admin token:  ${le.tokens.admin}`);
    if (le.tokens.viewer) out.push(`  viewer token: ${le.tokens.viewer}`);
    for (const a of le.accounts) out.push(`  account ${a.id}  ${a.asset.padEnd(13)} ${a.balance}  ${a.name}`);
  }
  out.push('');
  out.push(`Webhook signing public key (ECDSA P-256; also at ${sb.url}/v1/sandbox/webhook-public-key):`);
  out.push(sb.publicKeyPem.trimEnd());
  out.push('');
  out.push(
    `quote TTL ${sb.options.quoteTtlSeconds} s · upload URL TTL ${sb.options.uploadUrlTtlSeconds} s · visibility ${sb.options.visibilityDelayMs.min}–${sb.options.visibilityDelayMs.max} ms · webhook tolerance ${sb.options.webhookTimestampToleranceSeconds} s · seed ${String(sb.options.seed)}`,
  );
  process.stdout.write(`${out.join('\n')}\n`);
  let stopping = false;
  const stop = (signal: string) => {
    if (stopping) return;
    stopping = true;
    process.stdout.write(`\n${signal}: stopping the sandbox\n`);
    sb.close().then(
      () => process.exit(0),
      (err: unknown) => {
        console.error(err);
        process.exit(1);
      },
    );
  };
  process.on('SIGINT', () => stop('SIGINT'));
  process.on('SIGTERM', () => stop('SIGTERM'));
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
