/**
 * Starts a team server: migrates the database to the newest schema, opens the LISTEN connection
 * of the change feed, checks tokens against the OpenID provider and listens on HTTP.
 */
import type { AddressInfo } from 'node:net';
import type { FastifyInstance } from 'fastify';
import { createTokenVerifier, type AuthOptions } from './auth';
import { createDb, createPool, migrateToLatest, type TeamDb } from './db';
import { createChangeHub } from './hub';
import { buildTeamServer } from './server';
import { DEFAULT_TEAM_CLIENT_ID } from '../shared/team/config';

export interface TeamServerOptions {
  databaseUrl: string;
  auth: AuthOptions;
  /** The public client id workstations sign in with (default `treasury-desk`). */
  clientId?: string;
  host?: string;
  port?: number;
  /** Seconds a send lease lasts (default 60). */
  leaseSeconds?: number;
  /** Seconds a presence beat keeps an analyst present (default 30). */
  presenceSeconds?: number;
  logger?: boolean;
  https?: { key: string; cert: string };
}

export interface RunningTeamServer {
  url: string;
  app: FastifyInstance;
  db: TeamDb;
  close(): Promise<void>;
}

export async function startTeamServer(options: TeamServerOptions): Promise<RunningTeamServer> {
  const pool = createPool(options.databaseUrl);
  const db = createDb(pool);
  try {
    await migrateToLatest(db);
    const verifier = await createTokenVerifier(options.auth);
    const hub = createChangeHub(db, options.databaseUrl, (err) =>
      console.error(
        `team change feed: ${err instanceof Error ? err.message : String(err)} (listening again)`,
      ),
    );
    const app = buildTeamServer({
      db,
      verifier,
      hub,
      leaseSeconds: options.leaseSeconds ?? 60,
      presenceSeconds: options.presenceSeconds,
      publicConfig: {
        issuer: options.auth.issuer,
        clientId: options.clientId ?? DEFAULT_TEAM_CLIENT_ID,
        audience: options.auth.audience,
      },
      logger: options.logger,
      https: options.https,
    });
    app.addHook('onClose', async () => hub.close());
    await app.listen({ host: options.host ?? '127.0.0.1', port: options.port ?? 0 });
    const addr = app.server.address() as AddressInfo;
    const host = addr.family === 'IPv6' ? `[${addr.address}]` : addr.address;
    return {
      url: `${options.https ? 'https' : 'http'}://${host}:${addr.port}`,
      app,
      db,
      async close() {
        // Open event streams hold their sockets: end them so close does not wait for clients.
        app.server.closeAllConnections();
        await app.close();
        await db.destroy();
      },
    };
  } catch (err) {
    await db.destroy();
    throw err;
  }
}
