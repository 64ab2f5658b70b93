/**
 * The server's clock as seen from here. Every bank response carries a Date header (1 s
 * resolution); with the local send and receive times of the request, each answer bounds the
 * offset (server − local):
 *
 *   the server stamped Date somewhere between our send (t0) and receive (t1), and its true time
 *   then was in [D, D + 1000), so offset ∈ [D − t1, D + 1000 − t0].
 *
 * Intersecting the intervals of recent samples narrows the estimate well below one second after
 * a few answers (their sub-second phases differ); the estimate is the middle of the intersection.
 * When the intervals stop overlapping (the local clock was changed, the machine slept), the older
 * samples are dropped and the estimate restarts from the newest.
 */
export interface ClockSample {
  /** Local time when the request was sent (ms). */
  sentAt: number;
  /** Local time when the answer arrived (ms). */
  receivedAt: number;
  /** The answer's Date header, parsed (ms; whole seconds). */
  serverDate: number;
}

export interface ServerClock {
  /** Server time now, in ms since the epoch (local time until the first sample). */
  now(): number;
  /** Estimated server − local offset in ms (0 until the first sample). */
  readonly offsetMs: number;
  /** Half the width of the uncertainty interval in ms (Infinity until the first sample). */
  readonly uncertaintyMs: number;
  /** Number of samples the estimate rests on. */
  readonly samples: number;
  /** Feeds one answer: its Date header and the local send/receive times. */
  observe(dateHeader: string | undefined, sentAt: number, receivedAt: number): void;
  /** The local clock this estimate is based on (injectable for tests). */
  readonly localNow: () => number;
}

export interface ServerClockOptions {
  /** Local clock; Date.now by default (tests inject a skewed one). */
  localNow?: () => number;
  /** How many recent samples are intersected. */
  window?: number;
  /** Samples whose round trip exceeds this are ignored (too loose to help). */
  maxRoundTripMs?: number;
}

export function createServerClock(options: ServerClockOptions = {}): ServerClock {
  const localNow = options.localNow ?? Date.now;
  const windowSize = options.window ?? 16;
  const maxRtt = options.maxRoundTripMs ?? 30_000;
  const samples: Array<{ lo: number; hi: number }> = [];
  let lo = 0;
  let hi = 0;
  let used = 0;

  const recompute = (): void => {
    // Intersect from the newest backwards; stop at the first sample that would empty it.
    let l = -Infinity;
    let h = Infinity;
    let n = 0;
    for (let i = samples.length - 1; i >= 0; i--) {
      const s = samples[i]!;
      const nl = Math.max(l, s.lo);
      const nh = Math.min(h, s.hi);
      if (nl > nh) {
        // Older samples disagree with the newer ones: the local clock moved. Forget them.
        samples.splice(0, i + 1);
        break;
      }
      l = nl;
      h = nh;
      n++;
    }
    lo = l;
    hi = h;
    used = n;
  };

  const clock: ServerClock = {
    localNow,
    get offsetMs() {
      return used === 0 ? 0 : Math.round((lo + hi) / 2);
    },
    get uncertaintyMs() {
      return used === 0 ? Infinity : (hi - lo) / 2;
    },
    get samples() {
      return used;
    },
    now() {
      return localNow() + clock.offsetMs;
    },
    observe(dateHeader, sentAt, receivedAt) {
      if (!dateHeader) return;
      const serverDate = Date.parse(dateHeader);
      if (Number.isNaN(serverDate) || receivedAt < sentAt || receivedAt - sentAt > maxRtt) return;
      samples.push({ lo: serverDate - receivedAt, hi: serverDate + 1000 - sentAt });
      if (samples.length > windowSize) samples.splice(0, samples.length - windowSize);
      recompute();
    },
  };
  return clock;
}
