/**
 * The data key that encrypts drafts, the outbox and the RFI cache at rest: 256 random bits in the
 * OS keychain, in the same keychain service as the tokens under its own account. The account name
 * contains a colon, which no profile id can (profile ids are checked against [A-Za-z0-9._-]), so
 * it never meets a token entry. Created once, read at every start, never written to a file.
 */

import { randomBytes } from 'node:crypto';
import type { DataKey } from './at-rest';
import type { Logger } from './log';
import type { KeyringBackend } from './keyring';

/** The keychain account of the data key; its colon keeps it apart from every profile id. */
export const DATA_KEY_ACCOUNT = 'treasury-desk:data-key';

interface StoredKey {
  v: 1;
  kid: string;
  key: string;
}

function parse(secret: string): DataKey | null {
  try {
    const s = JSON.parse(secret) as Partial<StoredKey>;
    if (s.v !== 1 || typeof s.kid !== 'string' || typeof s.key !== 'string') return null;
    const key = Buffer.from(s.key, 'base64');
    if (key.length !== 32 || !/^dk_[0-9a-f]{16}$/.test(s.kid)) return null;
    return { id: s.kid, key };
  } catch {
    return null;
  }
}

export type DataKeyResult =
  | { key: DataKey; problem: null; garbled?: false }
  | { key: null; problem: string; /** The entry is there but is not a data key. */ garbled?: boolean };

/**
 * Reads the data key from the keychain, creating it the first time. Answers no key (with the
 * reason) when the keychain cannot be used: the data codec (infra/data-codec.ts) then waits for
 * the keychain when files were sealed here before, else writes plain and says so. An entry that is
 * there but unreadable (`garbled`) is never replaced (that would orphan every file sealed with
 * it), and never leads to plain writes.
 */
export async function loadDataKey(o: {
  backend: KeyringBackend;
  service: string;
  log: Logger;
}): Promise<DataKeyResult> {
  const { backend, service, log } = o;
  try {
    const existing = await backend.get(service, DATA_KEY_ACCOUNT);
    if (existing !== null) {
      const key = parse(existing);
      if (key) return { key, problem: null };
      // Never plain text in its place: the data codec waits (no file is written unsealed).
      log.error('data key: the keychain entry is not a data key; nothing is written this run');
      return { key: null, problem: 'The data key in the keychain is unreadable.', garbled: true };
    }
    const created: StoredKey = {
      v: 1,
      kid: `dk_${randomBytes(8).toString('hex')}`,
      key: randomBytes(32).toString('base64'),
    };
    await backend.set(service, DATA_KEY_ACCOUNT, JSON.stringify(created));
    // Read back: what is in the keychain is what later runs will use.
    const back = await backend.get(service, DATA_KEY_ACCOUNT);
    const key = back === null ? null : parse(back);
    if (!key || key.id !== created.kid) {
      log.error('data key: the keychain did not keep the new data key');
      return { key: null, problem: 'The keychain did not keep the data key.' };
    }
    log.info('data key: created in the keychain', { keyId: key.id });
    return { key, problem: null };
  } catch (err) {
    const m = (err instanceof Error ? err.message : String(err)).replace(/\s+/g, ' ').slice(0, 200);
    log.warn('data key: keychain not usable; files are written unencrypted', { problem: m });
    return { key: null, problem: m };
  }
}
