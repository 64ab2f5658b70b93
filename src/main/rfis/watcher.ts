/**
 * Polling of the RFI list: every interval (from settings, never below the floor) with jitter so
 * many desks do not hit the bank in step; paused while the machine sleeps, the screen is locked
 * or the network is gone; one poll at once on resume, unlock and when back online. Polls never
 * overlap: the next one is scheduled when the previous finished.
 */

import type { Logger } from '../infra/log';
import type { SystemEvent } from '../infra/platform';

export interface PollerOptions {
  /** The interval in ms, or a function read at every scheduling (settings may change). */
  intervalMs: number | (() => number);
  /** The interval is never shorter than this. */
  floorMs: number;
  /** ± this fraction of the interval, drawn uniformly (0.1 = ±10 %). */
  jitter: number;
  /**
   * One poll. Answering 'unreachable' (the bank could not be reached) makes the next polls come
   * sooner — the floor, doubling up to the interval — so the return of the network is noticed
   * quickly even where the platform reports no online event.
   */
  poll(): Promise<void | 'ok' | 'unreachable'>;
  onState?(state: PollerState): void;
  log: Logger;
  /** Injected in tests. */
  timers?: {
    setTimeout(fn: () => void, ms: number): unknown;
    clearTimeout(handle: unknown): void;
  };
  random?: () => number;
}

export type PollerState = 'running' | 'paused' | 'stopped';
export type PauseReason = 'suspend' | 'lock-screen' | 'offline';

export interface Poller {
  start(): void;
  stop(): void;
  /** Poll now (unless paused), then continue on the interval. */
  trigger(): void;
  /** Settings changed: the next wait uses the new interval. */
  reschedule(): void;
  systemEvent(event: SystemEvent): void;
  state(): PollerState;
  pauseReasons(): PauseReason[];
  /** The interval in effect (after the floor, before jitter). */
  intervalMs(): number;
  /** Time of the next scheduled poll (ms since epoch), null when none. */
  nextAt(): number | null;
  /** Number of polls started (tests and status). */
  readonly polls: number;
}

export function nextDelay(intervalMs: number, floorMs: number, jitter: number, random: () => number): number {
  const base = Math.max(floorMs, intervalMs);
  const j = Math.max(0, Math.min(jitter, 0.5));
  const delay = base * (1 - j + 2 * j * random());
  // Jitter never takes a poll below the floor.
  return Math.max(floorMs, Math.round(delay));
}

export function createPoller(options: PollerOptions): Poller {
  const timers = options.timers ?? {
    setTimeout: (fn: () => void, ms: number) => setTimeout(fn, ms),
    clearTimeout: (h: unknown) => clearTimeout(h as ReturnType<typeof setTimeout>),
  };
  const random = options.random ?? Math.random;
  const reasons = new Set<PauseReason>();
  let started = false;
  let timer: unknown = null;
  let nextAt: number | null = null;
  let inFlight = false;
  let again = false;
  let polls = 0;
  let unreachableStreak = 0;

  const interval = (): number =>
    Math.max(
      options.floorMs,
      typeof options.intervalMs === 'function' ? options.intervalMs() : options.intervalMs,
    );

  const state = (): PollerState => (!started ? 'stopped' : reasons.size > 0 ? 'paused' : 'running');
  let lastState: PollerState = 'stopped';
  const announce = (): void => {
    const s = state();
    if (s !== lastState) {
      lastState = s;
      options.onState?.(s);
    }
  };

  const clear = (): void => {
    if (timer !== null) timers.clearTimeout(timer);
    timer = null;
    nextAt = null;
  };

  const schedule = (): void => {
    clear();
    if (state() !== 'running') return;
    const delay =
      unreachableStreak > 0
        ? Math.min(interval(), options.floorMs * 2 ** Math.min(unreachableStreak - 1, 20))
        : nextDelay(interval(), options.floorMs, options.jitter, random);
    nextAt = Date.now() + delay;
    timer = timers.setTimeout(() => {
      timer = null;
      nextAt = null;
      run();
    }, delay);
    (timer as { unref?: () => void } | null)?.unref?.();
  };

  const run = (): void => {
    if (state() !== 'running') return;
    if (inFlight) {
      again = true;
      return;
    }
    inFlight = true;
    polls++;
    clear();
    void options
      .poll()
      .then((r) => {
        unreachableStreak = r === 'unreachable' ? unreachableStreak + 1 : 0;
      })
      .catch((err: unknown) => {
        unreachableStreak = 0;
        options.log.warn('rfis: poll failed', { error: err });
      })
      .finally(() => {
        inFlight = false;
        if (again) {
          again = false;
          run();
        } else {
          schedule();
        }
      });
  };

  const poller: Poller = {
    get polls() {
      return polls;
    },
    start() {
      if (started) return;
      started = true;
      announce();
      schedule();
    },
    stop() {
      started = false;
      clear();
      announce();
    },
    trigger() {
      if (state() === 'running') run();
    },
    reschedule() {
      if (!inFlight) schedule();
    },
    systemEvent(event) {
      switch (event) {
        case 'suspend':
        case 'lock-screen':
          reasons.add(event);
          clear();
          break;
        case 'offline':
          reasons.add('offline');
          clear();
          break;
        case 'resume':
          reasons.delete('suspend');
          break;
        case 'unlock-screen':
          reasons.delete('lock-screen');
          break;
        case 'online':
          reasons.delete('offline');
          break;
      }
      announce();
      if (event === 'resume' || event === 'unlock-screen' || event === 'online') {
        // Immediately, once nothing else holds the polling back.
        poller.trigger();
      }
    },
    state,
    pauseReasons: () => [...reasons],
    intervalMs: interval,
    nextAt: () => nextAt,
  };
  return poller;
}
