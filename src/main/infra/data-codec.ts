/**
 * The data folder's at-rest codec, chosen once the keychain has answered:
 *   - a data key: sealed, each file bound to its path and generation (infra/generations.ts);
 *   - the data-key entry is garbled, or files were sealed here before and the keychain does not
 *     answer now (locked): waiting for the keychain, never plain writes, nothing moved aside;
 *   - no keychain on this computer and nothing sealed before: plain, and vault.status says so.
 */
import { createAtRestCodec } from './at-rest';
import type { AtRestCodec } from './at-rest';
import { hasSealedBefore, openGenerationIndex } from './generations';
import type { GenerationProblem } from './generations';
import type { KeyringBackend } from './keyring';
import type { Logger } from './log';
import type { TokenVault } from './vault';

export interface DataCodec {
  codec: AtRestCodec;
  /** Writes the generation index if it changed (at dispose). */
  flush(): Promise<void>;
}

export async function openDataCodec(o: {
  dataDir: string;
  vault: TokenVault;
  backend: KeyringBackend;
  service: string;
  log: Logger;
  report(problem: GenerationProblem): void;
}): Promise<DataCodec> {
  const key = o.vault.dataKey();
  if (key) {
    const generations = await openGenerationIndex({ ...o, key });
    return {
      codec: createAtRestCodec(key, { root: o.dataDir, generations }),
      flush: () => generations.flush(),
    };
  }
  let waiting: string | null = null;
  if (o.vault.dataKeyGarbled()) waiting = 'the data key entry in the keychain is unreadable.';
  else if (await hasSealedBefore(o.dataDir)) {
    waiting =
      'files on this computer were encrypted with a key kept in the keychain, which does not answer now (locked?).';
  }
  if (waiting) {
    o.vault.markWaiting(waiting);
    o.log.warn('data at rest: waiting for the keychain; nothing is written', { reason: waiting });
  }
  return {
    codec: createAtRestCodec(null, { root: o.dataDir, waiting }),
    flush: async () => undefined,
  };
}
