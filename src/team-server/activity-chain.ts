/**
 * The team activity log's hash chain. The server numbers every entry (one sequence for the whole
 * team) and links it to the previous entry of the same legal entity, so an analyst can verify
 * everything they are allowed to read: each entry's hash is the sha256 of the canonical JSON of
 * its fields and the previous entry's hash.
 */
import { canonicalJson } from '../shared/team/canonical';
import type { ActivityEntry } from '../shared/team/schemas';
import { sha256Hex } from './context';
import { GENESIS_HASH } from './db/migrations/0001-team-schema';

export { GENESIS_HASH };

export function entryHash(entry: Omit<ActivityEntry, 'hash'>): string {
  return sha256Hex(
    canonicalJson({
      seq: entry.seq,
      at: entry.at,
      actor: entry.actor,
      legalEntityId: entry.legalEntityId,
      action: entry.action,
      object: entry.object,
      detail: entry.detail,
      prevHash: entry.prevHash,
    }),
  );
}

export type ChainProblem = { seq: number; problem: 'hash' | 'link' };

/**
 * Checks one entity's entries, in order from its first: each hash recomputes and each entry
 * links to the one before. Returns the first problem, or null when the chain holds.
 */
export function verifyChain(
  entries: readonly ActivityEntry[],
  startHash = GENESIS_HASH,
): ChainProblem | null {
  let prev = startHash;
  for (const e of entries) {
    if (e.prevHash !== prev) return { seq: e.seq, problem: 'link' };
    if (entryHash(e) !== e.hash) return { seq: e.seq, problem: 'hash' };
    prev = e.hash;
  }
  return null;
}
