/**
 * The RFI cache of a session's current scope: the environment, the bank's origin and the legal
 * entity of the credential. While the entity is not known (offline at start, or a bank without
 * GET /v1/webhook/url, which then never tells) the last one seen in this environment is used
 * (`rfis/scopes.json`), else one default scope per environment (a full sync reconciles it). The
 * folder names the bank too: a profile pointed at another origin never reads this cache.
 */

import { createHash } from 'node:crypto';
import { mkdir, rename, rm } from 'node:fs/promises';
import path from 'node:path';
import type { AtRestCodec } from '../infra/at-rest';
import { EMBEDDED_SANDBOX_ORIGIN, scopeOrigin } from '../bank/scope';
import { createSerialQueue, fileExists } from '../infra/durable-file';
import { stateFile } from '../infra/json-store';
import type { StateFileProblem } from '../infra/json-store';
import type { Logger } from '../infra/log';
import type { SessionManager } from '../session/session';
import { openRfiRepository } from './repository';
import type { RfiRepository } from './repository';
import { scopesFormat } from './scopes-file';

const UNKNOWN_ENTITY = '_unknown';

/**
 * Every profile's RFI service keeps its entry in the one `scopes.json`: its writes are serialised
 * per file and each merges into what is stored now, so one profile's entry never drops another's.
 */
const scopesWrites = new Map<string, <T>(task: () => Promise<T>) => Promise<T>>();
const scopesSerial = (file: string): (<T>(task: () => Promise<T>) => Promise<T>) => {
  let q = scopesWrites.get(file);
  if (!q) scopesWrites.set(file, (q = createSerialQueue()));
  return q;
};

function safeSegment(s: string): string {
  const clean = s.replace(/[^A-Za-z0-9._-]/g, '_').slice(0, 40);
  return `${clean}-${createHash('sha256').update(s).digest('hex').slice(0, 8)}`;
}

/** Deletes a profile's RFI caches (every legal entity it held), once the profile is removed. */
export async function removeProfileCache(dataDir: string, profileId: string, origin: string): Promise<void> {
  const root = path.join(dataDir, 'rfis');
  for (const segment of new Set([safeSegment(profileId), safeSegment(`${profileId}@${origin}`)])) {
    // A last cache write may still be landing: rm retries a folder that filled up meanwhile.
    await rm(path.join(root, segment), { recursive: true, force: true, maxRetries: 5, retryDelay: 50 });
  }
}

interface Scope {
  env: string;
  le: string;
  origin: string;
}

export interface ScopeCacheDeps {
  dataDir: string;
  session: Pick<SessionManager, 'environment' | 'credential'>;
  log: Logger;
  codec?: AtRestCodec;
  report?(problem: StateFileProblem): void;
  /** A scope's cache was opened and is now the current one (before its scope is saved). */
  onOpened(repo: RfiRepository): void;
  /** …and its scope saved: the cache is ready to be shown. */
  onReady(repo: RfiRepository): void;
}

export interface ScopeCache {
  /** The cache of the scope of now, opened once per scope (null once disposed). */
  current(): Promise<RfiRepository | null>;
  /** The cache opened last (null before the first). */
  readonly repo: RfiRepository | null;
  /** No cache opens from now on; resolves once one being opened (and its scope saved) is done. */
  dispose(): Promise<void>;
}

export async function openScopeCache(deps: ScopeCacheDeps): Promise<ScopeCache> {
  const { session, log } = deps;
  const root = path.join(deps.dataDir, 'rfis');
  const scopesFile = path.join(root, 'scopes.json');
  const scopesStore = stateFile(scopesFormat, {
    log,
    ...(deps.codec ? { codec: deps.codec } : {}),
    ...(deps.report ? { report: deps.report } : {}),
  });
  let lastScopes: Record<string, string> = (await scopesStore.read(scopesFile))?.value.scopes ?? {};
  let repo: RfiRepository | null = null;
  let repoScope: string | null = null;
  let opening: Promise<RfiRepository | null> | null = null;
  let disposed = false;

  const scopeOf = (): Scope => {
    const env = session.environment.id;
    const le = session.credential?.legalEntityId ?? lastScopes[env] ?? UNKNOWN_ENTITY;
    return { env, le, origin: scopeOrigin(session.environment) };
  };

  /** The scope's folder; a cache from before the folder named the origin is adopted into it. */
  const folderOf = async (scope: Scope): Promise<string> => {
    const envSegment =
      scope.origin === EMBEDDED_SANDBOX_ORIGIN
        ? safeSegment(scope.env)
        : safeSegment(`${scope.env}@${scope.origin}`);
    const dir = path.join(root, envSegment, safeSegment(scope.le));
    if (scope.origin === EMBEDDED_SANDBOX_ORIGIN) return dir;
    // That cache belongs to the profile's origin of now: adopted (its plain files are rewritten
    // sealed at the next flush), not left behind.
    const legacy = path.join(root, safeSegment(scope.env), safeSegment(scope.le));
    if (!(await fileExists(dir)) && (await fileExists(legacy))) {
      await mkdir(path.dirname(dir), { recursive: true, mode: 0o700 });
      await rename(legacy, dir).catch((err: unknown) =>
        log.warn('rfis: cache from before origin scoping not adopted', { error: err }),
      );
    }
    return dir;
  };

  const open = async (scope: Scope, key: string): Promise<RfiRepository> => {
    const dir = await folderOf(scope);
    const r = await openRfiRepository({ dir, log, ...(deps.codec ? { codec: deps.codec } : {}) });
    for (const p of r.problems) deps.report?.(p);
    // The cache of the scope before stops listening for the keychain (its files are no longer ours).
    repo?.close();
    repo = r;
    repoScope = key;
    deps.onOpened(r);
    if (scope.le !== UNKNOWN_ENTITY && lastScopes[scope.env] !== scope.le) {
      lastScopes = { ...lastScopes, [scope.env]: scope.le };
      const entry = { [scope.env]: scope.le };
      await scopesSerial(scopesFile)(async () => {
        const stored = (await scopesStore.read(scopesFile))?.value.scopes ?? {};
        await scopesStore.write(scopesFile, { version: 1, scopes: { ...stored, ...entry } });
      }).catch((err: unknown) => log.warn('rfis: last scope not saved', { error: err }));
    }
    deps.onReady(r);
    return r;
  };

  const current = async (): Promise<RfiRepository | null> => {
    if (disposed) return null;
    const scope = scopeOf();
    const key = `${scope.env}\u0000${scope.origin}\u0000${scope.le}`;
    if (repo && repoScope === key) return repo;
    if (opening) {
      await opening.catch(() => null);
      return current();
    }
    opening = open(scope, key);
    try {
      return await opening;
    } finally {
      opening = null;
    }
  };

  return {
    current,
    get repo() {
      return repo;
    },
    dispose: async () => {
      disposed = true;
      await opening?.catch(() => null);
    },
  };
}
