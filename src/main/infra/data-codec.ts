/**
 * The data folder's at-rest codec. Chosen at start from what the keychain answers:
 *   - a data key: sealed, each file bound to its path and generation (infra/generations.ts);
 *   - the data-key entry is garbled, or files were sealed here before and the keychain does not
 *     answer now (locked): waiting for the keychain, never plain writes, nothing moved aside;
 *   - no keychain on this computer and nothing sealed before: plain, and vault.status says so.
 *
 * The codec every store holds is live: when the keychain answers later in the run (the vault's
 * re-probe finds it and its data key), it switches to sealing at once, without a restart. From that
 * moment no write is plain; files written plain meanwhile are sealed again (`resealPlainFiles` in
 * infra/json-store.ts, the stores, the audit log), and holders of files that were read while
 * waiting read them again (`onSealed`). A file read while waiting is never written over before it
 * was read again (a holder that started empty would otherwise replace what it never saw): such a
 * write waits for the keychain, as it did before the switch.
 */
import path from 'node:path';
import { AtRestWaiting, createAtRestCodec } from './at-rest';
import type { AtRestCodec, DataKey } from './at-rest';
import { hasSealedBefore, openGenerationIndex } from './generations';
import { resealPlainFiles } from './json-store';
import type { GenerationProblem } from './generations';
import type { KeyringBackend } from './keyring';
import type { Logger } from './log';
import type { TokenVault } from './vault';

export interface DataCodec {
  /** The live codec: every holder sees the switch. */
  codec: AtRestCodec;
  /** Writes the generation index if it changed (at dispose). */
  flush(): Promise<void>;
  /** The keychain answered with the data key: seal from now on, open what waited. */
  unlock(key: DataKey): Promise<void>;
  /** The keychain answered with an unreadable data-key entry: never plain from now on. */
  wait(reason: string): void;
}

interface DataCodecOptions {
  dataDir: string;
  vault: TokenVault;
  backend: KeyringBackend;
  service: string;
  log: Logger;
  report(problem: GenerationProblem): void;
}

export async function openDataCodec(o: DataCodecOptions): Promise<DataCodec> {
  const key = o.vault.dataKey();
  let flushIndex: () => Promise<void> = async () => undefined;
  const sealedWith = async (k: DataKey): Promise<AtRestCodec> => {
    const generations = await openGenerationIndex({ ...o, key: k });
    flushIndex = () => generations.flush();
    return createAtRestCodec(k, { root: o.dataDir, generations });
  };
  let initial: AtRestCodec;
  if (key) initial = await sealedWith(key);
  else {
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
    initial = createAtRestCodec(null, { root: o.dataDir, waiting });
  }
  const live = liveCodec(initial, o.dataDir);
  return {
    codec: live.codec,
    flush: () => flushIndex(),
    async unlock(k) {
      if (live.codec.state === 'sealed') return;
      const before = live.codec.state;
      live.swap(await sealedWith(k));
      o.log.info('data at rest: the keychain answered; files are sealed from now on', { before });
      await live.sealed(o.log);
      await resealPlainFiles(o.dataDir, live.codec, o.log);
    },
    wait(reason) {
      if (live.codec.state !== 'plain') return;
      o.vault.markWaiting(reason);
      o.log.warn('data at rest: waiting for the keychain; nothing is written', { reason });
      live.swap(createAtRestCodec(null, { root: o.dataDir, waiting: reason }));
    },
  };
}

/**
 * A codec that forwards to the current one. Files whose reading waited for the keychain are
 * remembered until read again, so nobody writes over them unread once the key is there.
 */
function liveCodec(
  initial: AtRestCodec,
  root: string,
): { codec: AtRestCodec; swap(next: AtRestCodec): void; sealed(log: Logger): Promise<void> } {
  let current = initial;
  const unread = new Set<string>();
  const listeners = new Set<() => Promise<void> | void>();
  const name = (file: string): string => path.resolve(root, file);
  const opening = <T>(file: string | undefined, run: () => T): T => {
    try {
      const r = run();
      if (file !== undefined) unread.delete(name(file));
      return r;
    } catch (err) {
      if (err instanceof AtRestWaiting && file !== undefined) unread.add(name(file));
      throw err;
    }
  };
  /** A file sealed while the keychain did not answer is never written over before it is read. */
  const notOverUnread = (file: string): void => {
    if (current.state === 'sealed' && unread.has(name(file))) {
      throw new AtRestWaiting(
        `${path.basename(file)} was encrypted while the keychain did not answer and has not been read since; it is kept as it is until it is`,
      );
    }
  };
  const codec: AtRestCodec = {
    get encrypted() {
      return current.encrypted;
    },
    get state() {
      return current.state;
    },
    get waitingReason() {
      return current.waitingReason;
    },
    get keyId() {
      return current.keyId;
    },
    get blobs() {
      return current.blobs;
    },
    seal(plain, file) {
      if (file !== undefined) notOverUnread(file);
      return current.seal(plain, file);
    },
    sealStream(file) {
      notOverUnread(file);
      return current.sealStream(file);
    },
    written: (file) => current.written(file),
    open: (stored, file) => opening(file, () => current.open(stored, file)),
    openRecord: (stored, file) => opening(file, () => current.openRecord(stored, file)),
    generation: (file) => current.generation(file),
    onSealed(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
  };
  return {
    codec,
    swap(next) {
      current = next;
    },
    async sealed(log) {
      for (const l of [...listeners]) {
        try {
          await l();
        } catch (err) {
          log.error('data at rest: a holder did not take the switch to sealing', { error: err });
        }
      }
    },
  };
}
