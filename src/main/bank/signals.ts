/**
 * Abort signals of bank requests: a wait that a profile switch or a cancelled call cuts short, and
 * one signal for a request made of the call's own and its identity's (the active profile's), which
 * must not leave listeners behind on the long-lived one.
 */

/** Waits `ms`, or rejects with the signal's reason as soon as it aborts. */
export function abortableSleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) {
      reject(signal.reason ?? new Error('aborted'));
      return;
    }
    const t = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = (): void => {
      clearTimeout(t);
      reject(signal?.reason ?? new Error('aborted'));
    };
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

/** What a request aborted by `signal` throws: the signal's reason, else what the request threw. */
export function abortedBy(signal: AbortSignal, fallback: unknown): unknown {
  return signal.reason ?? fallback;
}

/**
 * One signal that aborts when any of the given ones does (the call's own and the environment's),
 * with `dispose()` removing its listeners from them: the environment's signal lives as long as
 * the profile stays active, so nothing may pile up on it request after request.
 */
export function linkSignals(signals: Array<AbortSignal | undefined>): {
  signal?: AbortSignal;
  dispose(): void;
} {
  const present = signals.filter((x): x is AbortSignal => x !== undefined);
  if (present.length <= 1) return { ...(present[0] ? { signal: present[0] } : {}), dispose: () => undefined };
  const controller = new AbortController();
  const offs: Array<() => void> = [];
  for (const s of present) {
    if (s.aborted) {
      controller.abort(s.reason);
      break;
    }
    const onAbort = (): void => controller.abort(s.reason);
    s.addEventListener('abort', onAbort, { once: true });
    offs.push(() => s.removeEventListener('abort', onAbort));
  }
  return { signal: controller.signal, dispose: () => offs.forEach((off) => off()) };
}
