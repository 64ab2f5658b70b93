/**
 * One team stack per test file, on the project's real PostgreSQL cluster and OpenID provider
 * (test/team/global-setup.ts): a fresh database, a team server over it with the demo team
 * seeded, and each demo analyst signed in through the provider's real code flow with PKCE.
 */
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { inject } from 'vitest';
import type { ObjectPresence } from '../../src/shared/team/notes';
import type { Change } from '../../src/shared/team/schemas';
import { createPool } from '../../src/team-server/db';
import { seedTeam } from '../../src/team-server/bootstrap';
import { DEMO_ANALYSTS, DEMO_TEAM } from '../../src/team-server/dev/demo-team';
import { signIn } from '../../src/team-server/dev/sign-in';
import { startTeamServer, type RunningTeamServer } from '../../src/team-server/index';

export const ALDER = 'le_demo_alder';
export const BIRCH = 'le_demo_birch';
export type Analyst = 'maria.keller' | 'jonas.weber' | 'lea.fischer';

export interface Answer<T = Record<string, unknown>> {
  status: number;
  body: T;
}

export interface TeamClient {
  token: string;
  get<T = Record<string, unknown>>(path: string): Promise<Answer<T>>;
  post<T = Record<string, unknown>>(path: string, body?: unknown): Promise<Answer<T>>;
  put<T = Record<string, unknown>>(path: string, body?: unknown): Promise<Answer<T>>;
}

export interface TeamStack {
  server: RunningTeamServer;
  databaseUrl: string;
  /** A direct connection to the team database, for checks (and for going around the server). */
  sql: pg.Pool;
  as(analyst: Analyst): TeamClient;
  /** Stops the team server (cutting open requests and streams) and starts a new one on the same address. */
  restartServer(): Promise<void>;
  close(): Promise<void>;
}

export function client(baseUrl: string, token: string): TeamClient {
  const call = async <T>(method: string, path: string, body?: unknown): Promise<Answer<T>> => {
    const res = await fetch(`${baseUrl}${path}`, {
      method,
      headers: {
        authorization: `Bearer ${token}`,
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await res.text();
    return { status: res.status, body: (text ? JSON.parse(text) : {}) as T };
  };
  return {
    token,
    get: (path) => call('GET', path),
    post: (path, body) => call('POST', path, body ?? {}),
    put: (path, body) => call('PUT', path, body ?? {}),
  };
}

export async function startTeamStack(
  opts: { leaseSeconds?: number; presenceSeconds?: number; postgresUrl?: string } = {},
): Promise<TeamStack> {
  const adminUrl = opts.postgresUrl ?? inject('teamPostgresUrl');
  const name = `team_${randomBytes(6).toString('hex')}`;
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${name}`);
  await admin.end();
  const databaseUrl = adminUrl.replace(/\/[^/]+$/, `/${name}`);
  const auth = { issuer: inject('teamIssuer'), audience: inject('teamAudience') };
  const start = (port?: number) =>
    startTeamServer({
      databaseUrl,
      auth,
      port,
      leaseSeconds: opts.leaseSeconds ?? 60,
      presenceSeconds: opts.presenceSeconds,
    });
  let server = await start();
  await seedTeam(server.db, DEMO_TEAM);
  const tokens = new Map<string, string>();
  await Promise.all(
    DEMO_ANALYSTS.map(async (a) =>
      tokens.set(a.subject, (await signIn(auth, a.subject, a.password)).accessToken),
    ),
  );
  const sql = createPool(databaseUrl, 4);
  return {
    get server() {
      return server;
    },
    databaseUrl,
    sql,
    as(analyst) {
      const token = tokens.get(analyst);
      if (!token) throw new Error(`no token for ${analyst}`);
      return client(server.url, token);
    },
    async restartServer() {
      const port = Number(new URL(server.url).port);
      await server.close();
      server = await start(port);
    },
    async close() {
      await sql.end();
      await server.close();
    },
  };
}

export interface ChangeStream {
  received: Change[];
  /** The stream's `presence` events, in order (not numbered changes). */
  presence: ObjectPresence[];
  /** Resolves once `n` changes in all have arrived. */
  waitFor(n: number): Promise<void>;
  /** Resolves once a presence event satisfies `test` (and answers it). */
  waitForPresence(test: (p: ObjectPresence) => boolean): Promise<ObjectPresence>;
  close(): Promise<void>;
}

/** Opens the server-sent event stream of changes as a workstation does, after `since`. */
export async function openChangeStream(baseUrl: string, token: string, since: number): Promise<ChangeStream> {
  const ac = new AbortController();
  const res = await fetch(`${baseUrl}/v1/changes/stream?since=${since}`, {
    headers: { authorization: `Bearer ${token}` },
    signal: ac.signal,
  });
  if (!res.ok || !res.body) throw new Error(`the change stream answered ${res.status}`);
  if (!res.headers.get('content-type')?.startsWith('text/event-stream'))
    throw new Error('not an event stream');
  const reader = res.body.pipeThrough(new TextDecoderStream()).getReader();
  const received: Change[] = [];
  const presence: ObjectPresence[] = [];
  let buffer = '';
  const readMore = async () => {
    const { value, done } = await reader.read();
    if (done) throw new Error('the stream ended');
    buffer += value;
    let cut: number;
    while ((cut = buffer.indexOf('\n\n')) >= 0) {
      const lines = buffer.slice(0, cut).split('\n');
      buffer = buffer.slice(cut + 2);
      const data = lines.find((l) => l.startsWith('data: '));
      if (!data) continue;
      if (lines.includes('event: presence')) presence.push(JSON.parse(data.slice(6)) as ObjectPresence);
      else received.push(JSON.parse(data.slice(6)) as Change);
    }
  };
  return {
    received,
    presence,
    async waitFor(n) {
      while (received.length < n) await readMore();
    },
    async waitForPresence(test) {
      let seen = 0;
      for (;;) {
        const hit = presence.slice(seen).find(test);
        if (hit) return hit;
        seen = presence.length;
        await readMore();
      }
    },
    async close() {
      ac.abort();
      await reader.cancel().catch(() => {});
    },
  };
}
