/**
 * The workstation's team state, `<dataDir>/state/team.json` (version 1): the team server's
 * address (approved in main's dialog before it is stored), what the server said about signing in
 * (issuer, client id, audience), the analyst last signed in (for the header while the server is
 * away) and the last change number applied, so a workstation away for a day catches up from it.
 * No token is ever written here: the refresh token is in the OS keychain, the access token only
 * in main's memory.
 */
import { z } from 'zod';
import { ApprovalRule } from '../../shared/team/schemas';
import type { StoreFormat } from '../infra/stores';

const membershipSchema = z.object({
  legalEntityId: z.string().max(128),
  legalEntityName: z.string().max(500),
  roles: z.array(z.string().max(16)).max(8),
});

export const storedTeamSchema = z.object({
  version: z.literal(1),
  /** The team server's origin (https, or http on loopback); null: solo use. */
  serverUrl: z.string().max(2000).nullable(),
  /** Issuer, client id and audience, as the server answered at `GET /v1/config`. */
  config: z
    .object({
      issuer: z.string().max(2000),
      clientId: z.string().max(255),
      audience: z.string().max(2000),
    })
    .nullable(),
  analyst: z
    .object({
      subject: z.string().max(255),
      name: z.string().max(500).nullable(),
      memberships: z.array(membershipSchema).max(500),
    })
    .nullable(),
  /** The last change number applied from the server's change feed (0: none yet). */
  lastSeq: z.number().int().nonnegative(),
  /**
   * Whose team caches and feed position these are (kept across a sign-out or an expired sign-in,
   * for the same analyst signing in again to this team server); null: nobody's yet.
   */
  keptFor: z.string().max(255).nullable().default(null),
});
export type StoredTeam = Omit<z.infer<typeof storedTeamSchema>, 'version'>;

export const teamStateFormat: StoreFormat<z.infer<typeof storedTeamSchema>> = {
  label: 'The team server settings',
  consequence: 'The team server address was forgotten; enter it again in Settings and sign in.',
  version: 1,
  schema: storedTeamSchema,
  migrations: {},
};

export const teamStateDefaults: StoredTeam = {
  serverUrl: null,
  config: null,
  analyst: null,
  lastSeq: 0,
  keptFor: null,
};

/**
 * The last approval rules read for each legal entity, `<dataDir>/state/team-rules.json` (sealed at
 * rest like every store), so a workstation started while the team server is away still knows which
 * answers need a checker. They belong to the team server they were read from: another address
 * starts empty.
 */
export const storedRulesSchema = z.object({
  version: z.literal(1),
  serverUrl: z.string().max(2000).nullable(),
  entities: z.record(
    z.string().max(128),
    z.object({ rules: z.array(ApprovalRule).max(100), readAt: z.string().max(64) }),
  ),
});
export type StoredRules = Omit<z.infer<typeof storedRulesSchema>, 'version'>;

export const teamRulesFormat: StoreFormat<z.infer<typeof storedRulesSchema>> = {
  label: 'The team’s approval rules (as last read)',
  consequence:
    'The approval rules last read from the team server were forgotten; answers that may need a checker wait until the team server answers.',
  version: 1,
  schema: storedRulesSchema,
  migrations: {},
};

export const teamRulesDefaults: StoredRules = { serverUrl: null, entities: {} };
