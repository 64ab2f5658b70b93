import type { KeyringBackend } from '../../src/main/infra/keyring';

/**
 * A keychain (the real Secret Service in the keychain tests) behind a switch: while `locked`
 * every call is refused, as a locked collection refuses it. `holdWrites(account)` makes the next
 * writes of that account wait until `release()`, so a test can act while a write is under way.
 */
export function lockable(real: KeyringBackend): {
  backend: KeyringBackend;
  unlock(): void;
  /** The next write of `account` waits; resolves once that write has reached the gate. */
  holdWrites(account: string): { reached: Promise<void>; release(): void };
} {
  let locked = true;
  const held = new Map<string, { reach(): void; gate: Promise<void> }>();
  const gate = <T>(call: () => Promise<T>): Promise<T> =>
    locked ? Promise.reject(new Error('the collection is locked')) : call();
  return {
    backend: {
      name: real.name,
      get: (s, a) => gate(() => real.get(s, a)),
      set: (s, a, secret) =>
        gate(async () => {
          const h = held.get(a);
          if (h) {
            held.delete(a);
            h.reach();
            await h.gate;
          }
          return real.set(s, a, secret);
        }),
      delete: (s, a) => gate(() => real.delete(s, a)),
    },
    unlock: () => {
      locked = false;
    },
    holdWrites(account) {
      let reach!: () => void;
      let release!: () => void;
      const reached = new Promise<void>((r) => (reach = r));
      const gateP = new Promise<void>((r) => (release = r));
      held.set(account, { reach, gate: gateP });
      return { reached, release };
    },
  };
}
