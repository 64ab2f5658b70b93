/**
 * The scene of the send-lease tests: the real team server with short leases (PostgreSQL), the
 * sandbox bank behind a fault proxy that holds the chosen bank writes longer than two leases, and
 * Maria's real workstation (her own bank credential and keychain entries) signed in as checker and
 * admin of the sandbox's legal entity, with Jonas a maker who acts on the team server directly.
 */
import { randomBytes } from 'node:crypto';
import { napiKeyringBackend } from '../../src/main/infra/keyring';
import type { ApprovalRule } from '../../src/shared/team/schemas';
import { startSandbox, type RunningSandbox } from '../../src/sandbox';
import { startFaultProxy, type FaultProxy, type RequestInfo } from '../support/fault-proxy';
import { startServices, type TestServices } from '../support/services';
import { startTeamStack, type TeamStack } from './support';
import { seedCheckerScene, TEAM_TEST_OPTIONS } from './workstation-support';

export interface LeaseScene {
  stack: TeamStack;
  sandbox: RunningSandbox;
  proxy: FaultProxy;
  maria: TestServices;
  entity: string;
  close(): Promise<void>;
}

export async function startLeaseScene(o: {
  seed: string;
  leaseSeconds: number;
  /** The bank writes the proxy holds, and for how long. */
  slow: (r: RequestInfo) => boolean;
  delayMs: number;
  rules: ApprovalRule[];
  /** Maria's workstation also takes over expired leases (the answers' sweep). */
  takeover?: boolean;
}): Promise<LeaseScene> {
  const keyringService = `treasury-desk-team-test/${randomBytes(6).toString('hex')}`;
  const stack = await startTeamStack({ leaseSeconds: o.leaseSeconds });
  const sandbox = await startSandbox({ port: 0, seed: o.seed, visibilityDelayMs: { min: 0, max: 0 } });
  const proxy = await startFaultProxy({
    target: sandbox.url,
    plan: (r) => (o.slow(r) ? { kind: 'pass', delayMs: o.delayMs } : { kind: 'pass' }),
  });
  const le = sandbox.fixtures.legal_entities[0]!;
  const maria = await startServices({
    keyringService,
    environment: { kind: 'remote', baseUrl: proxy.url, name: 'Bank', token: le.tokens.admin },
    team: {
      ...TEAM_TEST_OPTIONS,
      ...(o.takeover ? { takeover: { everyMs: 250, graceMs: 1_000 } } : {}),
      leaseRenewal: { minMs: 100 },
    },
  });
  await maria.services.session.check();
  await seedCheckerScene(stack.server.db, maria, stack.server.url, le, o.rules);
  return {
    stack,
    sandbox,
    proxy,
    maria,
    entity: le.id,
    async close() {
      await maria.close();
      proxy.dropAll();
      await proxy.close();
      await sandbox.close();
      await stack.close().catch(() => undefined);
      await napiKeyringBackend()
        .delete(keyringService, 'team-refresh-token')
        .catch(() => false);
    },
  };
}
