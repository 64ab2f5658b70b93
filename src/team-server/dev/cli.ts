/**
 * `npm run team:dev`: the embedded team for trying things out. Creates a throwaway PostgreSQL
 * cluster in a temporary folder, starts the development OpenID provider and a team server with
 * the demo team, signs the three demo analysts in (so their tokens can be used at once), prints
 * how to connect, and removes everything when stopped (Ctrl-C).
 *
 *   --port <n>        the team server's port (4020)
 *   --oidc-port <n>   the OpenID provider's port (4021)
 */
import { seedTeam } from '../bootstrap';
import { startTeamServer } from '../index';
import { DEMO_TEAM } from './demo-team';
import { DEMO_ANALYSTS, DESK_CLIENT_ID, startDevOidcProvider } from './oidc';
import { startPostgresCluster } from './postgres-cluster';
import { signIn } from './sign-in';

function option(args: string[], name: string, fallback: number): number {
  const i = args.indexOf(name);
  if (i < 0) return fallback;
  const v = Number(args[i + 1]);
  if (!Number.isInteger(v) || v < 0 || v > 65535) throw new Error(`${name} needs a port number`);
  return v;
}

async function main(): Promise<void> {
  const args = process.argv.slice(2);
  const port = option(args, '--port', 4020);
  const oidcPort = option(args, '--oidc-port', 4021);
  const cluster = await startPostgresCluster();
  const cleanups: (() => Promise<void>)[] = [() => cluster.stop()];
  const stopAll = async () => {
    for (const c of cleanups.reverse()) await c().catch((err: unknown) => console.error(err));
  };
  try {
    const provider = await startDevOidcProvider({ port: oidcPort });
    cleanups.push(() => provider.close());
    const server = await startTeamServer({
      databaseUrl: cluster.url,
      auth: { issuer: provider.issuer, audience: provider.audience },
      port,
    });
    cleanups.push(() => server.close());
    await seedTeam(server.db, DEMO_TEAM);
    const out: string[] = [];
    out.push(`Treasury Desk team server (development) listening on ${server.url}`);
    out.push('');
    out.push(`PostgreSQL (throwaway, removed on exit): DATABASE_URL=${cluster.url}`);
    out.push(
      `OpenID provider: issuer ${provider.issuer}, client ${DESK_CLIENT_ID} (public, PKCE, loopback redirect)`,
    );
    out.push(`Team server audience (resource): ${provider.audience}`);
    out.push('');
    out.push('Demo analysts (sign in at the provider with these):');
    for (const a of DEMO_ANALYSTS) {
      const roles = DEMO_TEAM.members
        .filter((m) => m.subject === a.subject)
        .map(
          (m) =>
            `${m.roles.join('+')} at ${DEMO_TEAM.entities.find((e) => e.id === m.legalEntityId)?.name ?? m.legalEntityId}`,
        );
      out.push(
        `  ${a.name.padEnd(13)} ${a.subject.padEnd(13)} password ${a.password.padEnd(11)} ${roles.join('; ')}`,
      );
    }
    out.push('');
    const first = DEMO_ANALYSTS[0];
    if (first) {
      const token = await signIn(provider, first.subject, first.password);
      out.push(`An access token for ${first.name} (valid ${token.expiresIn} s), to try the API:`);
      out.push(`  curl -H 'Authorization: Bearer ${token.accessToken}' ${server.url}/v1/me`);
      out.push(`  curl -N -H 'Authorization: Bearer ${token.accessToken}' ${server.url}/v1/changes/stream`);
    }
    process.stdout.write(`${out.join('\n')}\n`);
  } catch (err) {
    await stopAll();
    throw err;
  }
  let stopping = false;
  const stop = (signal: string) => {
    if (stopping) return;
    stopping = true;
    process.stdout.write(`\n${signal}: stopping the team server, the provider and PostgreSQL\n`);
    stopAll().then(
      () => process.exit(0),
      () => process.exit(1),
    );
  };
  process.on('SIGINT', () => stop('SIGINT'));
  process.on('SIGTERM', () => stop('SIGTERM'));
}

main().catch((err: unknown) => {
  console.error(err instanceof Error ? err.message : err);
  process.exit(1);
});
