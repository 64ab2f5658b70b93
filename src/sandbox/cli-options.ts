/**
 * Command-line flags and TREASURY_SANDBOX_* environment variables → SandboxOptions. A flag wins
 * over the environment. Pure except for reading the private key file.
 */
import { readFileSync } from 'node:fs';
import type { SandboxOptions } from './options';

interface Spec {
  flag: string;
  help: string;
  apply(o: Partial<SandboxOptions>, v: string): void;
  boolean?: boolean;
}

function int(name: string, v: string): number {
  if (!/^[0-9]+$/.test(v))
    throw new Error(`--${name}: expected a non-negative integer, got ${JSON.stringify(v)}`);
  return Number.parseInt(v, 10);
}

function bool(name: string, v: string): boolean {
  if (['1', 'true', 'yes', ''].includes(v)) return true;
  if (['0', 'false', 'no'].includes(v)) return false;
  throw new Error(`--${name}: expected true or false`);
}

const retry = (o: Partial<SandboxOptions>) =>
  (o.webhookRetry ??= { initialMs: 1000, maxMs: 600_000, giveUpAfterMs: 72 * 3600_000, timeoutMs: 5000 });
const vis = (o: Partial<SandboxOptions>) => (o.visibilityDelayMs ??= { min: 0, max: 3000 });
const rate = (o: Partial<SandboxOptions>) => (o.rateLimit ??= { requestsPerSecond: 50, burst: 100 });

export const CLI_SPECS: Spec[] = [
  { flag: 'host', help: 'address to listen on (default 127.0.0.1)', apply: (o, v) => (o.host = v) },
  {
    flag: 'port',
    help: 'port (default 4010 from the CLI; 0 = free port)',
    apply: (o, v) => (o.port = int('port', v)),
  },
  { flag: 'seed', help: 'seed of ids and tokens (default 1)', apply: (o, v) => (o.seed = v) },
  {
    flag: 'control-secret',
    help: 'secret of the /v1/sandbox/* control routes, sent as the Sandbox-Control-Secret header (16-256 visible ASCII; default: a new random one, printed at start)',
    apply: (o, v) => (o.controlSecret = v),
  },
  {
    flag: 'allowed-host',
    help: 'extra host name accepted in the Host header (with the port), besides 127.0.0.1, localhost and [::1]; comma-separated',
    apply: (o, v) =>
      (o.allowedHosts = [
        ...(o.allowedHosts ?? []),
        ...v
          .split(',')
          .map((x) => x.trim())
          .filter(Boolean),
      ]),
  },
  {
    flag: 'visibility-delay-min-ms',
    help: 'read-after-create 404 window, lower bound (default 0)',
    apply: (o, v) => (vis(o).min = int('visibility-delay-min-ms', v)),
  },
  {
    flag: 'visibility-delay-max-ms',
    help: 'read-after-create 404 window, upper bound (default 3000)',
    apply: (o, v) => (vis(o).max = int('visibility-delay-max-ms', v)),
  },
  {
    flag: 'quote-ttl-seconds',
    help: 'crypto quote validity (default 30)',
    apply: (o, v) => (o.quoteTtlSeconds = int('quote-ttl-seconds', v)),
  },
  {
    flag: 'return-completion-delay-ms',
    help: 'in_progress → return_completed (default 5000)',
    apply: (o, v) => (o.returnCompletionDelayMs = int('return-completion-delay-ms', v)),
  },
  {
    flag: 'settlement-delay-ms',
    help: 'crypto pending_execution → completed/failed (default 2000)',
    apply: (o, v) => (o.settlementDelayMs = int('settlement-delay-ms', v)),
  },
  {
    flag: 'upload-url-ttl-seconds',
    help: 'signed upload URL lifetime (default 900)',
    apply: (o, v) => (o.uploadUrlTtlSeconds = int('upload-url-ttl-seconds', v)),
  },
  {
    flag: 'max-upload-bytes',
    help: 'upload size limit (default 26214400)',
    apply: (o, v) => (o.maxUploadBytes = int('max-upload-bytes', v)),
  },
  {
    flag: 'extra-legal-entities',
    help: 'legal entities seeded after A and B, each with admin and viewer tokens (default 0, max 8)',
    apply: (o, v) => (o.extraLegalEntities = int('extra-legal-entities', v)),
  },
  {
    flag: 'webhook-initial-ms',
    help: 'first webhook retry delay (default 1000)',
    apply: (o, v) => (retry(o).initialMs = int('webhook-initial-ms', v)),
  },
  {
    flag: 'webhook-max-ms',
    help: 'webhook retry delay cap (default 600000)',
    apply: (o, v) => (retry(o).maxMs = int('webhook-max-ms', v)),
  },
  {
    flag: 'webhook-give-up-after-ms',
    help: 'stop retrying after (default 259200000 = 72 h)',
    apply: (o, v) => (retry(o).giveUpAfterMs = int('webhook-give-up-after-ms', v)),
  },
  {
    flag: 'webhook-timeout-ms',
    help: 'webhook attempt timeout (default 5000)',
    apply: (o, v) => (retry(o).timeoutMs = int('webhook-timeout-ms', v)),
  },
  {
    flag: 'webhook-tolerance-seconds',
    help: 'signature timestamp tolerance verifiers should use (default 300)',
    apply: (o, v) => (o.webhookTimestampToleranceSeconds = int('webhook-tolerance-seconds', v)),
  },
  {
    flag: 'data-dir',
    help: 'where uploaded documents are kept (default a temp dir)',
    apply: (o, v) => (o.dataDir = v),
  },
  {
    flag: 'private-key-file',
    help: 'PKCS#8 PEM file of the ECDSA P-256 webhook signing key (default: a new key)',
    apply: (o, v) => (o.privateKeyPem = readFileSync(v, 'utf8')),
  },
  {
    flag: 'usdc-inventory',
    help: 'USDC the sandbox can sell, minor units (default 250000000 = 250 USDC)',
    apply: (o, v) => {
      if (!/^(0|[1-9][0-9]*)$/.test(v)) throw new Error('--usdc-inventory: expected minor units');
      o.usdcInventory = BigInt(v);
    },
  },
  {
    flag: 'write-delay-ms',
    help: 'artificial processing time of creating calls (default 0)',
    apply: (o, v) => (o.writeDelayMs = int('write-delay-ms', v)),
  },
  {
    flag: 'idempotency-retention-seconds',
    help: 'Idempotency-Key retention (default 86400)',
    apply: (o, v) => (o.idempotencyRetentionSeconds = int('idempotency-retention-seconds', v)),
  },
  {
    flag: 'rate-limit-rps',
    help: 'enable rate limiting: requests per second per credential',
    apply: (o, v) => (rate(o).requestsPerSecond = int('rate-limit-rps', v)),
  },
  {
    flag: 'rate-limit-burst',
    help: 'rate limit bucket size (default 2 × rps)',
    apply: (o, v) => (rate(o).burst = int('rate-limit-burst', v)),
  },
  {
    flag: 'validate-responses',
    help: 'check every response against its schema',
    boolean: true,
    apply: (o, v) => (o.validateResponses = bool('validate-responses', v)),
  },
  {
    flag: 'log-requests',
    help: 'log each request',
    boolean: true,
    apply: (o, v) => (o.logRequests = bool('log-requests', v)),
  },
];

export function envName(flag: string): string {
  return `TREASURY_SANDBOX_${flag.toUpperCase().replace(/-/g, '_')}`;
}

export function usage(): string {
  const lines = CLI_SPECS.map(
    (s) => `  --${s.flag}${s.boolean ? '' : ' <value>'}\n      ${s.help} [env ${envName(s.flag)}]`,
  );
  return `Usage: npm run sandbox -- [options]\n\n${lines.join('\n')}\n  --help\n`;
}

export function parseCliOptions(
  argv: string[],
  env: Record<string, string | undefined>,
): Partial<SandboxOptions> & { help?: boolean } {
  const o: Partial<SandboxOptions> & { help?: boolean } = { port: 4010 };
  const bySpec = new Map(CLI_SPECS.map((s) => [s.flag, s]));
  for (const s of CLI_SPECS) {
    const v = env[envName(s.flag)];
    if (v !== undefined) s.apply(o, v);
  }
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i] ?? '';
    if (arg === '--help' || arg === '-h') {
      o.help = true;
      continue;
    }
    const m = /^--([a-z0-9-]+)(?:=(.*))?$/.exec(arg);
    const spec = m?.[1] ? bySpec.get(m[1]) : undefined;
    if (!m || !spec) throw new Error(`unknown option ${arg}\n\n${usage()}`);
    let value = m[2];
    if (value === undefined) {
      if (spec.boolean) value = 'true';
      else {
        value = argv[++i];
        if (value === undefined) throw new Error(`--${spec.flag} needs a value`);
      }
    }
    spec.apply(o, value);
  }
  if (
    o.rateLimit &&
    env[envName('rate-limit-burst')] === undefined &&
    !argv.some((a) => a.startsWith('--rate-limit-burst'))
  ) {
    o.rateLimit.burst = Math.max(1, o.rateLimit.requestsPerSecond * 2);
  }
  return o;
}
