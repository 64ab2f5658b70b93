/**
 * The team activity log's hash chain on the server: the chain itself (what a hash covers, how a
 * chain is checked) is shared with the workstations (`src/shared/team/activity-chain.ts`).
 */
import { chainInput, verifyChainWith, type ChainProblem } from '../shared/team/activity-chain';
import type { ActivityEntry } from '../shared/team/schemas';
import { sha256Hex } from './context';
import { GENESIS_HASH } from './db/migrations/0001-team-schema';

export { GENESIS_HASH };
export type { ChainProblem };

export function entryHash(entry: Omit<ActivityEntry, 'hash'>): string {
  return sha256Hex(chainInput(entry));
}

/**
 * Checks one entity's entries, in order from its first: each hash recomputes and each entry
 * links to the one before. Returns the first problem, or null when the chain holds.
 */
export function verifyChain(
  entries: readonly ActivityEntry[],
  startHash = GENESIS_HASH,
): ChainProblem | null {
  return verifyChainWith(sha256Hex, entries, startHash);
}
