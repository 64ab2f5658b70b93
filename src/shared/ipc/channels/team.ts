/**
 * The team connection: the team server's address (approved in main's native dialog), signing in
 * through the system browser, one status for the header, and RFI assignment. No token crosses:
 * the renderer sees who is signed in and their roles, never a token or the sign-in URL.
 */
import { z } from 'zod';
import { bankId } from '../../api/common';
import { Subject, TeamRole } from '../../team/schemas';
import { channel, event, noArgs } from '../define';
import { profileIdSchema } from './settings';

export const teamStatusSchema = z.object({
  /** The team server's origin; null in solo use. */
  serverUrl: z.string().nullable(),
  connection: z.enum(['solo', 'signed-out', 'signing-in', 'connecting', 'connected', 'unreachable']),
  /** Unreachable: since when (epoch ms) and when the next attempt is. */
  since: z.number().nullable(),
  retryAt: z.number().nullable(),
  analyst: z
    .object({
      subject: Subject,
      name: z.string(),
      memberships: z.array(
        z.object({ legalEntityId: z.string(), legalEntityName: z.string(), roles: z.array(TeamRole) }),
      ),
    })
    .nullable(),
  /** Team changes of this analyst waiting for the team server (claims made offline). */
  pendingChanges: z.number().int().nonnegative(),
  /** Something the analyst should read (an expired sign-in); null when none. */
  problem: z.string().nullable(),
});
export type TeamStatusView = z.infer<typeof teamStatusSchema>;

const holderSchema = z.object({ subject: Subject, name: z.string(), isYou: z.boolean() });

/**
 * Who holds one RFI. The team server knows an RFI by its legal entity and RFI id (RFI ids are one
 * bank's only): a view is found by both, never by the RFI id alone.
 */
export const assignmentViewSchema = z.object({
  legalEntityId: z.string(),
  rfiId: z.string(),
  holder: holderSchema.nullable(),
  /** A change of this analyst's waiting for the team server. */
  pending: z.enum(['claim', 'release', 'reassign']).nullable(),
  pendingTo: holderSchema.nullable(),
});
export type AssignmentView = z.infer<typeof assignmentViewSchema>;

const rfiTarget = {
  rfiId: bankId,
  /** The profile that owns the RFI (the row says it); main finds its legal entity from that profile's bank. */
  profileId: profileIdSchema,
};

export const teamChannels = {
  'team.status': channel({
    summary: 'Where the team connection stands and who is signed in (never a token).',
    args: noArgs,
    result: teamStatusSchema,
  }),
  'team.setServer': channel({
    summary:
      'Set the team server address (https; http only on this machine), approved in main’s native dialog first; null removes it (solo use).',
    args: z.strictObject({ url: z.string().trim().min(1).max(2000).nullable() }),
    result: teamStatusSchema,
  }),
  'team.signIn': channel({
    summary: 'Sign in to the team in the system browser (OpenID Connect with PKCE, loopback redirect).',
    args: noArgs,
    result: teamStatusSchema,
  }),
  'team.signOut': channel({
    summary: 'Sign out of the team: the keychain entry is deleted, the access token forgotten.',
    args: noArgs,
    result: teamStatusSchema,
  }),
  'team.assignments': channel({
    summary: 'Who holds each RFI of the analyst’s legal entities, with their own changes still pending.',
    args: noArgs,
    result: z.array(assignmentViewSchema),
  }),
  'team.claim': channel({
    summary:
      'Claim an RFI for the signed-in analyst (queued and shown pending while the team server is away).',
    args: z.strictObject(rfiTarget),
    result: assignmentViewSchema,
  }),
  'team.release': channel({
    summary: 'Release an RFI the analyst holds.',
    args: z.strictObject(rfiTarget),
    result: assignmentViewSchema,
  }),
  'team.reassign': channel({
    summary: 'Reassign an RFI from the holder the analyst saw to another analyst (admin).',
    args: z.strictObject({ ...rfiTarget, from: Subject.nullable(), to: Subject }),
    result: assignmentViewSchema,
  }),
};

export const teamEvents = {
  'team.changed': event({
    summary: 'The team connection’s status changed.',
    payload: teamStatusSchema,
  }),
  'team.assignmentsChanged': event({
    summary: 'Holders changed (read them again); `notice` says why a queued change was dropped.',
    payload: z.object({ notice: z.string().nullable() }),
  }),
};
