/**
 * The local RFI repository ("data in"): every RFI of the legal entity, synced from
 * GET /v1/rfis and cached on disk, with derived fields (src/shared/rfi-view.ts) and unread
 * markers. The queue and detail screens read from here; they work offline.
 */

import { z } from 'zod';
import { bankId } from '../../api/common';
import { Rfi } from '../../api/rfis';
import { channel, event } from '../define';
import { profileIdSchema } from './settings';

export const deadlineBandSchema = z.enum(['on_track', 'at_risk', 'breached', 'none']);

/** One queue row (see RfiSummary in src/shared/rfi-view.ts). */
export const rfiSummarySchema = z.object({
  id: z.string(),
  type: z.string(),
  status: z.string(),
  relatedId: z.string(),
  description: z.string(),
  createdAt: z.string(),
  updatedAt: z.string(),
  deadline: z.string().nullable(),
  band: deadlineBandSchema,
  questionCounts: z.record(z.string(), z.number()),
  questionTotal: z.number(),
  awaitingResponse: z.number(),
  unread: z.boolean(),
  awaitingAction: z.boolean(),
  /** The profile whose cache holds the row (the consolidated desk covers every watched profile). */
  profileId: z.string().optional(),
  /** The legal entity the RFI is addressed to, by name (the profile's name when the bank does not say). */
  entityName: z.string().optional(),
  /**
   * The legal entity the owning profile acts for, by id (null while its bank has not said): with
   * the RFI id, how the team server knows the RFI (who holds it).
   */
  legalEntityId: z.string().nullable().optional(),
});
export type RfiSummaryView = z.infer<typeof rfiSummarySchema>;

export const rfiCountsSchema = z.object({
  total: z.number(),
  unread: z.number(),
  awaitingAction: z.number(),
  byStatus: z.record(z.string(), z.number()),
  byType: z.record(z.string(), z.number()),
  byBand: z.object({ on_track: z.number(), at_risk: z.number(), breached: z.number(), none: z.number() }),
});
export type RfiCountsView = z.infer<typeof rfiCountsSchema>;

export const rfiSyncStateSchema = z.object({
  /** idle: last sync fine; syncing; offline: the bank could not be reached; error: see lastError. */
  state: z.enum(['idle', 'syncing', 'offline', 'error']),
  /** When the cache last matched the bank (ISO), null before the first sync. */
  lastSyncedAt: z.string().nullable(),
  lastError: z.string().nullable(),
  /** incremental: GET /v1/rfis?updated_since=…; full: every page (server without the extension). */
  lastMode: z.enum(['full', 'incremental']).nullable(),
  /** Whether the server honours updated_since (null: not known yet). */
  updatedSinceSupported: z.boolean().nullable(),
  /** The watcher: polling paused (suspend, lock screen, offline) or running. */
  polling: z.enum(['running', 'paused', 'stopped']),
  pollIntervalSeconds: z.number(),
});
export type RfiSyncStateView = z.infer<typeof rfiSyncStateSchema>;

const stringList = z.array(z.string().max(200)).max(100);

export const rfiListArgsSchema = z
  .strictObject({
    /** Keep these RFI statuses (any string: unknown statuses can be filtered too). */
    status: stringList.optional(),
    type: stringList.optional(),
    /** Case-insensitive substring of id, related id, description, type or status. */
    text: z.string().max(500).optional(),
    unreadOnly: z.boolean().optional(),
    band: z.array(deadlineBandSchema).max(4).optional(),
    /** Keep one entity's rows: the profile that watches it. */
    profileId: z.string().max(64).optional(),
    /** deadline (default): most urgent first, no deadline last. */
    sort: z.enum(['deadline', 'updated_desc', 'created_desc']).optional(),
    /** A window of the filtered, sorted rows (default: all of them). */
    offset: z.number().int().min(0).optional(),
    limit: z.number().int().min(1).max(20_000).optional(),
  })
  .optional();

/** One watched profile of the consolidated desk: its entity and how its watch goes. */
export const watchedEntitySchema = z.object({
  profileId: z.string(),
  /** The legal entity by name (the profile's name while the bank has not said). */
  name: z.string(),
  /** The profile's name, as the analyst called it. */
  profileName: z.string(),
  /** The active profile: writes (answers, returns, quotes) go out as this entity. */
  active: z.boolean(),
  /** Its own connection: one entity's outage or revoked token shows here alone. */
  connection: z.enum(['connected', 'no_token', 'unauthenticated', 'offline', 'error']).nullable(),
  problem: z.string().nullable(),
  sync: z.enum(['idle', 'syncing', 'offline', 'error']),
  lastSyncedAt: z.string().nullable(),
  total: z.number(),
  /**
   * Other profiles holding a credential for this same legal entity at the same bank: not watched
   * separately (the entity's RFIs would be listed twice); this profile watches for them.
   */
  sharedWith: z
    .array(z.object({ profileId: z.string(), profileName: z.string(), role: z.string().nullable() }))
    .optional(),
  /** How this entity's changes arrive: signed webhook events at its own route, or polling only (and why). */
  events: z.object({ mode: z.enum(['webhook', 'polling']), reason: z.string().nullable() }).optional(),
});
export type WatchedEntityView = z.infer<typeof watchedEntitySchema>;

export const rfiDetailSchema = z.object({
  /** The RFI as the bank sent it (unknown fields kept). */
  rfi: Rfi,
  summary: rfiSummarySchema,
  /** true when this is the copy saved on this computer (no fresh read of this RFI was made). */
  fromCache: z.boolean(),
  /**
   * true only when the bank was really not reached: a fresh read was asked for and failed as
   * transient, or the local copy was read while the last sync found the bank offline. A local
   * re-read after a change (an answer just sent) is not "unreachable".
   */
  bankUnreachable: z.boolean(),
  /** The updated_at the analyst last saw (null: never opened). */
  lastSeenUpdatedAt: z.string().nullable(),
  /** The profile that owns the RFI and its entity's name: answers go out with that profile's credential. */
  owner: z.object({ profileId: z.string(), entityName: z.string() }).optional(),
  /**
   * Documents this workstation uploaded for the RFI, by the bank's document id, with the file name
   * and type (the bank keeps neither name): the history names them instead of showing ids.
   */
  documents: z.array(z.object({ id: z.string(), name: z.string(), documentType: z.string() })).optional(),
});
export type RfiDetailView = z.infer<typeof rfiDetailSchema>;

export const rfiChangedSchema = z.object({
  /** What brought the change. */
  source: z.enum(['sync', 'poll', 'webhook', 'refresh', 'seen', 'load']),
  /** RFIs new to the cache. */
  created: z.array(z.string()),
  /** RFIs whose content changed (includes created and status changes). */
  updated: z.array(z.string()),
  /** RFIs whose RFI status changed. */
  statusChanged: z.array(z.string()),
  /** RFIs no longer listed by the bank (full sync). */
  removed: z.array(z.string()),
  /** RFIs whose unread marker changed (markSeen). */
  seen: z.array(z.string()),
  /** More ids changed than listed (lists are capped at 1000): reload the whole queue. */
  truncated: z.boolean(),
  counts: rfiCountsSchema,
});
export type RfiChangedView = z.infer<typeof rfiChangedSchema>;

const rfiIdArg = bankId;
/**
 * The profile that owns the RFI (every row and detail says it). RFI ids are one bank's only: two
 * banks may use the same id, so main reads and marks the RFI through this profile alone.
 */
const ownerArg = profileIdSchema;

export const rfisChannels = {
  'rfis.list': channel({
    summary:
      'Queue rows from the local cache (offline too): compact summaries filtered and sorted in main, with counts over the whole cache.',
    args: rfiListArgsSchema,
    result: z.object({
      items: z.array(rfiSummarySchema),
      /** Rows matching the filter (before offset/limit). */
      total: z.number(),
      /** Counts over the whole cache (not the filter). */
      counts: rfiCountsSchema,
      sync: rfiSyncStateSchema,
      /** Every profile the desk watches (the active one first). */
      entities: z.array(watchedEntitySchema).optional(),
    }),
  }),
  'rfis.get': channel({
    summary:
      'One RFI of the profile that owns it, from its cache; refresh: true re-reads it from that profile’s bank first (falls back to the cache when offline).',
    args: z.strictObject({ profileId: ownerArg, id: rfiIdArg, refresh: z.boolean().optional() }),
    result: rfiDetailSchema,
  }),
  'rfis.sync': channel({
    summary: 'Sync now (incremental when the server supports updated_since; full: true forces every page).',
    args: z.strictObject({ full: z.boolean().optional() }).optional(),
    result: z.object({ sync: rfiSyncStateSchema, counts: rfiCountsSchema }),
  }),
  'rfis.markSeen': channel({
    summary:
      'The analyst opened the RFI: remember its updated_at as seen (clears the unread marker until it changes).',
    args: z.strictObject({ profileId: ownerArg, id: rfiIdArg, updatedAt: z.string().max(64).optional() }),
    result: z.object({ summary: rfiSummarySchema.nullable(), counts: rfiCountsSchema }),
  }),
  'rfis.related': channel({
    summary:
      'Names of the objects RFIs are about, each through the RFI’s owning profile: an account by its own name and holder (that profile’s account book), a transfer by its counterparty and amount (that profile’s bank, read once and remembered). Objects nothing names, and profiles that no longer exist, are left out.',
    args: z.strictObject({
      items: z
        .array(
          z.strictObject({
            profileId: ownerArg,
            type: z.string().max(64),
            relatedId: bankId,
          }),
        )
        .max(500),
    }),
    result: z.object({
      items: z.array(
        z.object({
          profileId: z.string(),
          relatedId: z.string(),
          /** The object's own name: an account's name, or a transfer's counterparty and amount. */
          name: z.string(),
          /** The legal entity holding the account, when known (null for a transfer). */
          holder: z.string().nullable(),
          /** An incoming transfer's counterparty and amount (minor units), for lists with columns. */
          transfer: z
            .object({ counterparty: z.string(), amount: z.string(), currency: z.string() })
            .optional(),
        }),
      ),
    }),
  }),
  'rfis.counts': channel({
    summary: 'Counts per status, type and deadline band, unread and awaiting action, and the sync state.',
    args: z.undefined(),
    result: z.object({ counts: rfiCountsSchema, sync: rfiSyncStateSchema }),
  }),
};

export const rfisEvents = {
  'rfis.changed': event({
    summary:
      'RFIs in the cache changed (sync, polling, webhook, refresh, seen): which ones and the new counts.',
    payload: rfiChangedSchema,
  }),
  'rfis.syncState': event({
    summary: 'The sync/polling state changed (syncing, offline, paused…).',
    payload: rfiSyncStateSchema,
  }),
  'rfis.openRequested': event({
    summary:
      'The analyst clicked an RFI notification: open that RFI of that profile (#/rfis/<id>?profile=<profile id>).',
    payload: z.object({ rfiId: z.string(), profileId: z.string().optional() }),
  }),
};
