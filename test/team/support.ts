/**
 * One team stack per test file, on the project's real PostgreSQL cluster and OpenID provider
 * (test/team/global-setup.ts): a fresh database, a team server over it with the demo team
 * seeded, and each demo analyst signed in through the provider's real code flow with PKCE.
 */
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { inject } from 'vitest';
import { createPool } from '../../src/team-server/db';
import { DEMO_ANALYSTS } from '../../src/team-server/dev/oidc';
import { seedTeam } from '../../src/team-server/bootstrap';
import { DEMO_TEAM } from '../../src/team-server/dev/demo-team';
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

export async function startTeamStack(opts: { leaseSeconds?: number } = {}): Promise<TeamStack> {
  const adminUrl = inject('teamPostgresUrl');
  const name = `team_${randomBytes(6).toString('hex')}`;
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${name}`);
  await admin.end();
  const databaseUrl = adminUrl.replace(/\/[^/]+$/, `/${name}`);
  const auth = { issuer: inject('teamIssuer'), audience: inject('teamAudience') };
  const server = await startTeamServer({ databaseUrl, auth, leaseSeconds: opts.leaseSeconds ?? 60 });
  await seedTeam(server.db, DEMO_TEAM);
  const tokens = new Map<string, string>();
  await Promise.all(
    DEMO_ANALYSTS.map(async (a) =>
      tokens.set(a.subject, (await signIn(auth, a.subject, a.password)).accessToken),
    ),
  );
  const sql = createPool(databaseUrl, 4);
  return {
    server,
    databaseUrl,
    sql,
    as(analyst) {
      const token = tokens.get(analyst);
      if (!token) throw new Error(`no token for ${analyst}`);
      return client(server.url, token);
    },
    async close() {
      await sql.end();
      await server.close();
    },
  };
}
