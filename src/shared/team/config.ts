/**
 * What a workstation needs to sign in to a team server, answered without a token by
 * `GET /v1/config`: the OpenID provider's issuer, the public client id registered for Treasury
 * Desk and the team server's audience (the resource its access tokens are for).
 */
import { z } from 'zod';
import { Subject, TeamRole } from './schemas';

export const TeamConfig = z.strictObject({
  issuer: z.string().url().max(2000),
  clientId: z.string().min(1).max(255),
  audience: z.string().min(1).max(2000),
});
export type TeamConfig = z.infer<typeof TeamConfig>;

/** The client id of Treasury Desk at the provider when the server is not told another. */
export const DEFAULT_TEAM_CLIENT_ID = 'treasury-desk';

/** The analysts of one legal entity, so a workstation names a holder by name, not by subject. */
export const Member = z.strictObject({
  subject: Subject,
  name: z.string().nullable(),
  roles: z.array(TeamRole),
});
export const MembersPage = z.strictObject({ members: z.array(Member) });
export type Member = z.infer<typeof Member>;
