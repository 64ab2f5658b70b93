/**
 * The team activity log's hash chain, as the team server writes it and a workstation checks it.
 * The server numbers every entry (one sequence for the whole team) and links it to the previous
 * entry of the same legal entity: each entry's hash is the sha256 of the canonical JSON of its
 * fields and the previous entry's hash. Pure (the sha256 is the caller's: `node:crypto` on both
 * sides), so the server and the workstation hash the same bytes.
 */
import { canonicalJson } from './canonical';
import type { ActivityEntry } from './schemas';

/** The previous hash of an entity's first entry. */
export const GENESIS_HASH = '0'.repeat(64);

/** What an entry's hash covers: every field but the hash, in canonical JSON. */
export function chainInput(entry: Omit<ActivityEntry, 'hash'>): string {
  return canonicalJson({
    seq: entry.seq,
    at: entry.at,
    actor: entry.actor,
    legalEntityId: entry.legalEntityId,
    action: entry.action,
    object: entry.object,
    detail: entry.detail,
    prevHash: entry.prevHash,
  });
}

export type ChainProblem = { seq: number; problem: 'hash' | 'link' };

/**
 * Checks one entity's entries, in order from its first: each hash recomputes and each entry
 * links to the one before. Returns the first problem, or null when the chain holds.
 */
export function verifyChainWith(
  sha256Hex: (text: string) => string,
  entries: readonly ActivityEntry[],
  startHash = GENESIS_HASH,
): ChainProblem | null {
  let prev = startHash;
  for (const e of entries) {
    if (e.prevHash !== prev) return { seq: e.seq, problem: 'link' };
    if (sha256Hex(chainInput(e)) !== e.hash) return { seq: e.seq, problem: 'hash' };
    prev = e.hash;
  }
  return null;
}
