/**
 * Where main may send the bearer token and customer data, decided outside the renderer.
 *
 * A bank origin is usable when it is
 * - on the administrator's allow-list: a JSON file outside the data folder that no channel writes
 *   (`{"origins": ["https://api.bank.example"]}`; path from the `bankAllowList` option, else the
 *   TREASURY_DESK_BANK_ALLOWLIST environment variable of main, else the system location below), or
 * - approved by the analyst in a native dialog main shows (`platform.confirmDestination`), kept
 *   per origin in `<dataDir>/state/approved-bank-origins.json`, or
 * - given to createServices by main's own code (the `environment: {kind: 'remote'}` option).
 *
 * A webhook URL other than this app's receiver is confirmed natively every time it is set.
 * Only one such dialog is open at a time; a second request while one waits is refused, so a page
 * cannot stack dialogs.
 */

import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { z } from 'zod';
import { AppFailure } from '../../shared/ipc/errors';
import type { Logger } from '../infra/log';
import type { DestinationApproval, Platform } from '../infra/platform';
import { bankOrigin, isLoopbackHost } from '../infra/origins';
import type { StoreContent, StoreFormat, Stores, TypedStore } from '../infra/stores';

export type ApprovalSource = 'allow-list' | 'analyst' | 'main';

export interface DestinationGuard {
  /** How the origin was approved, or null when it is not. */
  approval(origin: string): ApprovalSource | null;
  /** Asks the analyst natively unless already approved; throws `not_approved` when declined. */
  approveBankOrigin(origin: string, profileName: string): Promise<ApprovalSource>;
  /**
   * Asks the analyst natively to let the app sign in to and talk to a team server at this origin
   * (unless already approved); the same list as bank addresses. Throws `not_approved` when declined.
   */
  approveTeamOrigin(origin: string): Promise<ApprovalSource>;
  /** Records an origin main itself chose (not the renderer). */
  approveByMain(origin: string): void;
  /**
   * Forgets the analyst's (or main's) approval of an origin: the next profile using it asks again.
   * An administrator's allow-list entry stays (it is outside the app's reach).
   */
  revoke(origin: string): void;
  /**
   * Asks the analyst a yes/no question in main's own dialog (one at a time, never the page's):
   * replacing a stored token, removing a profile with what it loses. True only on approval.
   */
  confirm(request: DestinationApproval): Promise<boolean>;
  /**
   * Tells of every change to the approved bank addresses (and every refusal), for the audit log;
   * those made before anyone listened (main's own approval at start) are told at once.
   */
  onDecision(listener: (decision: OriginDecision) => void): () => void;
  /** Asks the analyst natively to let the bank post events to this URL; throws when declined. */
  confirmWebhookUrl(url: string, credential: string): Promise<void>;
  /** What the allow-list file said (path, count, problem), for the log and tests. */
  readonly allowList: { path: string | null; origins: string[]; problem: string | null };
}

/** approved-bank-origins.json, version 1 (version 0: the same content without a version). */
const approvalsSchema = z.object({
  version: z.literal(1),
  origins: z.array(
    z.object({
      origin: z.string().max(2000),
      how: z.enum(['analyst', 'main']),
      at: z.string().max(64),
    }),
  ),
});

export const approvalsFormat: StoreFormat<z.infer<typeof approvalsSchema>> = {
  label: 'The list of approved bank addresses',
  consequence: 'A new list was started; each address is asked about again.',
  version: 1,
  schema: approvalsSchema,
  migrations: { 0: (raw) => raw },
};

const allowListSchema = z.object({ origins: z.array(z.string().max(2000)).max(1000) });

/**
 * A webhook URL the bank may post to: https to any host, plain http only to loopback (this
 * machine), no credentials or fragment. Answers it normalised.
 */
export function checkWebhookUrl(raw: string): string {
  let u: URL;
  try {
    u = new URL(raw.trim());
  } catch {
    throw new AppFailure({
      kind: 'invalid_argument',
      field: 'url',
      message: 'The webhook URL is not a URL.',
    });
  }
  const ok = u.protocol === 'https:' || (u.protocol === 'http:' && isLoopbackHost(u.hostname));
  if (!ok || u.username || u.password || u.hash) {
    throw new AppFailure({
      kind: 'invalid_argument',
      field: 'url',
      message:
        'The webhook URL must use https (plain http only to 127.0.0.1 / localhost) and carry no credentials or fragment.',
    });
  }
  return u.href;
}

/** The system location of the allow-list, per platform (written by an administrator). */
export function defaultBankAllowListPath(
  platform: NodeJS.Platform = process.platform,
  env: NodeJS.ProcessEnv = process.env,
): string {
  const fromEnv = env['TREASURY_DESK_BANK_ALLOWLIST'];
  if (fromEnv) return fromEnv;
  if (platform === 'win32') {
    return path.win32.join(env['ProgramData'] ?? 'C:\\ProgramData', 'Treasury Desk', 'bank-allowlist.json');
  }
  if (platform === 'darwin') return '/Library/Application Support/Treasury Desk/bank-allowlist.json';
  return '/etc/treasury-desk/bank-allowlist.json';
}

function inside(child: string, parent: string): boolean {
  const rel = path.relative(path.resolve(parent), path.resolve(child));
  return rel === '' || (!rel.startsWith('..') && !path.isAbsolute(rel));
}

async function readAllowList(
  file: string | null,
  dataDir: string,
): Promise<{ path: string | null; origins: string[]; problem: string | null }> {
  if (!file) return { path: null, origins: [], problem: null };
  if (inside(file, dataDir)) {
    return {
      path: file,
      origins: [],
      problem: 'The bank allow-list lies inside the data folder, which the app itself writes: ignored.',
    };
  }
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    return {
      path: file,
      origins: [],
      problem: code === 'ENOENT' ? null : `The bank allow-list cannot be read (${code ?? 'error'}).`,
    };
  }
  let parsed: z.infer<typeof allowListSchema>;
  try {
    parsed = allowListSchema.parse(JSON.parse(text));
  } catch {
    return {
      path: file,
      origins: [],
      problem: 'The bank allow-list is not {"origins": ["https://…"]}: ignored.',
    };
  }
  const origins: string[] = [];
  for (const o of parsed.origins) {
    const origin = bankOrigin(o);
    // An entry must be an origin exactly (no path), so it names one bank host.
    if (origin && (o === origin || o === `${origin}/`)) origins.push(origin);
  }
  const skipped = parsed.origins.length - origins.length;
  return {
    path: file,
    origins,
    problem:
      skipped > 0
        ? `${skipped} entr${skipped === 1 ? 'y' : 'ies'} of the bank allow-list skipped (not an https origin).`
        : null,
  };
}

export interface DestinationGuardOptions {
  dataDir: string;
  stores: Stores;
  platform: Platform;
  log: Logger;
  /** The allow-list file; null: none. */
  allowListPath: string | null;
}

/** A change to the approved bank addresses: approved (by the analyst or by main) or declined. */
export interface OriginDecision {
  origin: string;
  decision: 'approved-by-analyst' | 'approved-by-main' | 'declined' | 'revoked';
}

const notApproved = (what: string): AppFailure =>
  new AppFailure({
    kind: 'not_approved',
    reason: 'DESTINATION_NOT_APPROVED',
    message: `${what} was not approved in the app's confirmation dialog. Nothing was sent there.`,
  });

export async function createDestinationGuard(options: DestinationGuardOptions): Promise<DestinationGuard> {
  const { platform, log } = options;
  const allowList = await readAllowList(options.allowListPath, options.dataDir);
  if (allowList.problem)
    log.warn('destinations: bank allow-list', { path: allowList.path, problem: allowList.problem });
  else if (allowList.origins.length > 0) {
    log.info('destinations: bank allow-list loaded', {
      path: allowList.path,
      origins: allowList.origins.length,
    });
  }
  const allowed = new Set(allowList.origins);
  const store: TypedStore<StoreContent<z.infer<typeof approvalsSchema>>> = await options.stores.open(
    'approved-bank-origins',
    approvalsFormat,
    { origins: [] },
  );

  let asking = false;
  const ask = async (request: Parameters<Platform['confirmDestination']>[0]): Promise<boolean> => {
    if (asking) {
      throw new AppFailure({
        kind: 'not_approved',
        reason: 'APPROVAL_PENDING',
        message: 'Another confirmation is waiting for your answer. Answer it first, then try again.',
      });
    }
    asking = true;
    try {
      return await platform.confirmDestination(request);
    } finally {
      asking = false;
    }
  };

  const decisions: OriginDecision[] = [];
  let listener: ((d: OriginDecision) => void) | null = null;
  const decide = (d: OriginDecision): void => {
    if (listener) listener(d);
    else decisions.push(d);
  };

  // Main is the only writer of the approvals file: read once, kept in memory for the run.
  const approved = new Map(store.get().origins.map((o) => [o.origin, o.how] as const));
  const record = (origin: string, how: 'analyst' | 'main'): void => {
    approved.set(origin, how);
    store.update((s) => ({
      origins: [
        ...s.origins.filter((o) => o.origin !== origin),
        { origin, how, at: new Date().toISOString() },
      ],
    }));
  };

  /** Asks the analyst about an origin not yet approved and records the answer (one list for all). */
  const approveAsked = async (
    origin: string,
    what: 'bank' | 'team server',
    request: DestinationApproval,
  ): Promise<ApprovalSource> => {
    const known = guard.approval(origin);
    if (known) return known;
    if (!(await ask(request))) {
      log.warn(`destinations: ${what} origin declined`, { origin });
      decide({ origin, decision: 'declined' });
      throw notApproved(`The ${what} address ${origin}`);
    }
    record(origin, 'analyst');
    decide({ origin, decision: 'approved-by-analyst' });
    log.info(`destinations: ${what} origin approved by the analyst`, { origin });
    return 'analyst';
  };

  const guard: DestinationGuard = {
    allowList,
    approval(origin) {
      if (allowed.has(origin)) return 'allow-list';
      return approved.get(origin) ?? null;
    },
    async approveBankOrigin(origin, profileName) {
      // The name comes from the page: one plain line, so it cannot pose as the dialog's own text.
      const name =
        profileName
          .replace(/[\p{Cc}\p{Cf}\s]+/gu, ' ')
          .trim()
          .slice(0, 80) || 'Bank';
      return approveAsked(origin, 'bank', {
        kind: 'bank-origin',
        destination: origin,
        title: 'Approve a bank address',
        message: `Send your bank access token and customer data to ${origin}?`,
        detail:
          `The environment "${name}" wants to use ${origin}. The app will send the access ` +
          'token for this environment to this address and to no other. Approve only an address ' +
          'your bank or administrator gave you.',
        approveLabel: 'Approve this address',
      });
    },
    approveTeamOrigin: (origin) =>
      approveAsked(origin, 'team server', {
        kind: 'team-origin',
        destination: origin,
        title: 'Approve a team server address',
        message: `Sign in to the team server at ${origin}?`,
        detail:
          `The app will send your team sign-in and your team's assignments and approvals to ${origin}. ` +
          'Bank tokens never go there. Approve only an address your administrator gave you.',
        approveLabel: 'Approve this address',
      }),
    revoke(origin) {
      if (!approved.has(origin)) return;
      approved.delete(origin);
      store.update((st) => ({ origins: st.origins.filter((o) => o.origin !== origin) }));
      decide({ origin, decision: 'revoked' });
      log.info('destinations: bank origin approval revoked', { origin });
    },
    confirm: (request) => ask(request),
    onDecision(l) {
      listener = l;
      for (const d of decisions.splice(0)) l(d);
      return () => {
        if (listener === l) listener = null;
      };
    },
    approveByMain(origin) {
      if (guard.approval(origin)) return;
      record(origin, 'main');
      decide({ origin, decision: 'approved-by-main' });
    },
    async confirmWebhookUrl(url, credential) {
      const ok = await ask({
        kind: 'webhook-url',
        destination: url,
        title: 'Approve a webhook address',
        message: `Let the bank post RFI events to ${url}?`,
        detail:
          `The bank will send event notifications of ${credential} to this address. ` +
          'Approve only an address you or your administrator run.',
        approveLabel: 'Approve this address',
      });
      if (!ok) {
        log.warn('destinations: webhook URL declined', { url });
        throw notApproved(`The webhook address ${url}`);
      }
    },
  };
  return guard;
}
