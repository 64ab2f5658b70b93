/**
 * A view of the default profile's object (its bank client or clock) that always reads the one
 * that is the default now. Its one use: the entity watch's member for the default profile (its RFI service
 * and webhook configuration, which act only for the default profile itself). Never for an object
 * another profile owns: those go through their owner (the registry's session for their profileId).
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
