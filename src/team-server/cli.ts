/**
 * `npm run team-server`: runs the team server against an existing PostgreSQL database.
 *
 *   DATABASE_URL        postgres://user:password@host:5432/team (required)
 *   TEAM_OIDC_ISSUER    the OpenID provider's issuer (required); its JWKS is found by discovery
 *   TEAM_AUDIENCE       the team server's resource identifier, the tokens' `aud` (required)
 *   TEAM_JWKS_URL       the provider's JWKS, when discovery is not wanted
 *   HOST, PORT          where to listen (127.0.0.1:4020)
 *   TEAM_TLS_KEY, TEAM_TLS_CERT   PEM files: serve https directly
 *   TEAM_LEASE_SECONDS  how long a send lease lasts (60)
 *   TEAM_PRESENCE_SECONDS  how long a presence beat keeps an analyst present (30)
 *   TEAM_CLIENT_ID      the public client id workstations sign in with (treasury-desk)
 *
 * `npm run team-server -- bootstrap <entity id> <entity name> <admin subject>` registers a legal
 * entity and its first admin (who then sets everyone else's roles through the API) and exits.
 */
import { readFileSync } from 'node:fs';
import { seedTeam } from './bootstrap';
import { createDb, createPool, migrateToLatest } from './db';
import { startTeamServer } from './index';

function required(env: NodeJS.ProcessEnv, name: string): string {
  const v = env[name];
  if (!v) throw new Error(`${name} is required (see src/team-server/cli.ts or docs/team.md)`);
  return v;
}

async function bootstrap(args: string[], env: NodeJS.ProcessEnv): Promise<void> {
  const [id, name, subject] = args;
  if (!id || !name || !subject)
    throw new Error('usage: team-server bootstrap <entity id> <entity name> <admin subject>');
  const db = createDb(createPool(required(env, 'DATABASE_URL'), 1));
  try {
    await migrateToLatest(db);
    await seedTeam(db, {
      entities: [{ id, name }],
      members: [{ subject, name: subject, legalEntityId: id, roles: ['admin'] }],
    });
    process.stdout.write(`Legal entity ${name} (${id}) registered with admin ${subject}\n`);
  } finally {
    await db.destroy();
  }
}

async function main(): Promise<void> {
  const env = process.env;
  const [command, ...rest] = process.argv.slice(2);
  if (command === 'bootstrap') return bootstrap(rest, env);
  if (command) throw new Error(`unknown command ${command}`);
  const tlsKey = env['TEAM_TLS_KEY'];
  const tlsCert = env['TEAM_TLS_CERT'];
  if (Boolean(tlsKey) !== Boolean(tlsCert)) throw new Error('TEAM_TLS_KEY and TEAM_TLS_CERT go together');
  const server = await startTeamServer({
    databaseUrl: required(env, 'DATABASE_URL'),
    auth: {
      issuer: required(env, 'TEAM_OIDC_ISSUER'),
      audience: required(env, 'TEAM_AUDIENCE'),
      ...(env['TEAM_JWKS_URL'] ? { jwksUrl: env['TEAM_JWKS_URL'] } : {}),
    },
    ...(env['TEAM_CLIENT_ID'] ? { clientId: env['TEAM_CLIENT_ID'] } : {}),
    host: env['HOST'] ?? '127.0.0.1',
    port: Number(env['PORT'] ?? 4020),
    leaseSeconds: Number(env['TEAM_LEASE_SECONDS'] ?? 60),
    presenceSeconds: Number(env['TEAM_PRESENCE_SECONDS'] ?? 30),
    logger: true,
    ...(tlsKey && tlsCert
      ? { https: { key: readFileSync(tlsKey, 'utf8'), cert: readFileSync(tlsCert, 'utf8') } }
      : {}),
  });
  process.stdout.write(`Treasury Desk team server listening on ${server.url}\n`);
  let stopping = false;
  const stop = (signal: string) => {
    if (stopping) return;
    stopping = true;
    process.stdout.write(`${signal}: stopping the team server\n`);
    server.close().then(
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
  console.error(err instanceof Error ? err.message : err);
  process.exit(1);
});
