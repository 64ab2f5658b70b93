/**
 * The busy guard: work that must not be cut by a restart (an answer upload or send, a money
 * confirmation) holds it while it runs; the updater asks `isBusy()` and waits for `whenIdle()`
 * before it offers to restart.
 */
export interface BusyGuard {
  /** Runs `work` while holding the guard under `reason`. */
  run<T>(reason: string, work: () => Promise<T>): Promise<T>;
  /** Holds the guard until the returned release is called (once). */
  hold(reason: string): () => void;
  isBusy(): boolean;
  /** What holds it now (for logs and the update dialog). */
  reasons(): string[];
  /** Resolves once nothing holds it. */
  whenIdle(): Promise<void>;
}

export function createBusyGuard(): BusyGuard {
  const held = new Map<number, string>();
  let next = 1;
  let waiters: Array<() => void> = [];
  const settle = (): void => {
    if (held.size > 0) return;
    const w = waiters;
    waiters = [];
    for (const resolve of w) resolve();
  };
  const guard: BusyGuard = {
    hold(reason) {
      const id = next++;
      held.set(id, reason);
      let released = false;
      return () => {
        if (released) return;
        released = true;
        held.delete(id);
        settle();
      };
    },
    async run(reason, work) {
      const release = guard.hold(reason);
      try {
        return await work();
      } finally {
        release();
      }
    },
    isBusy: () => held.size > 0,
    reasons: () => [...new Set(held.values())],
    whenIdle: () => (held.size === 0 ? Promise.resolve() : new Promise((r) => waiters.push(r))),
  };
  return guard;
}

type AsyncMethodKeys<T> = {
  [K in keyof T]: T[K] extends (...args: never[]) => Promise<unknown> ? K : never;
}[keyof T];

/** Makes each listed async method of `target` hold the guard while it runs (instance override). */
export function guardMethods<T extends object>(
  target: T,
  guard: BusyGuard,
  methods: Partial<Record<AsyncMethodKeys<T>, string>>,
): T {
  for (const [name, reason] of Object.entries(methods) as Array<[keyof T & string, string]>) {
    const original = target[name] as unknown as (...args: unknown[]) => Promise<unknown>;
    const wrapped = (...args: unknown[]): Promise<unknown> =>
      guard.run(reason, () => original.apply(target, args));
    (target as Record<string, unknown>)[name] = wrapped;
  }
  return target;
}
