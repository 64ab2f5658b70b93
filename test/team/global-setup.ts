/**
 * The `team` project's real components, started once for the project: a throwaway PostgreSQL
 * cluster from the distribution's binaries and the development OpenID provider. Each test file
 * gets its own database in that cluster and its own team server (test/team/support.ts).
 */
import type { JWK } from 'jose';
import type { TestProject } from 'vitest/node';
import { startDevOidcProvider } from '../../src/team-server/dev/oidc';
import { startPostgresCluster } from '../../src/team-server/dev/postgres-cluster';

declare module 'vitest' {
  export interface ProvidedContext {
    teamPostgresUrl: string;
    teamIssuer: string;
    teamAudience: string;
    teamSigningKey: JWK;
  }
}

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const [cluster, provider] = await Promise.all([
    startPostgresCluster({ database: 'template_team' }),
    startDevOidcProvider(),
  ]);
  project.provide('teamPostgresUrl', cluster.url);
  project.provide('teamIssuer', provider.issuer);
  project.provide('teamAudience', provider.audience);
  project.provide('teamSigningKey', provider.signingKey);
  return async () => {
    await provider.close();
    await cluster.stop();
  };
}
