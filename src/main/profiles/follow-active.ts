/**
 * A view of the active profile's object (its bank client or clock) that always reads the one
 * active now: for what follows the default profile by design (the header's clock, the primary
 * RFI service), never for a write of an object another profile owns.
 */
export function followActive<T extends object>(current: () => T): T {
  return new Proxy({} as T, {
    get(_target, key) {
      const target = current();
      const value = Reflect.get(target, key, target) as unknown;
      return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(target) : value;
    },
    has: (_target, key) => Reflect.has(current(), key),
  });
}
