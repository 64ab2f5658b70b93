/**
 * A small seeded PRNG (mulberry32) for reliability scenarios: the same seed replays the same
 * faults, so a failing trial is reproduced by re-running with the seed it printed.
 */
export interface Rng {
  readonly seed: number;
  /** Uniform in [0, 1). */
  next(): number;
  /** Integer in [min, max] (inclusive). */
  int(min: number, max: number): number;
  chance(p: number): boolean;
  pick<T>(items: readonly T[]): T;
  /** A weighted choice: { a: 3, b: 1 } picks a three times as often as b. */
  weighted<K extends string>(weights: Partial<Record<K, number>>): K;
  /** A child generator with its own stream (e.g. one per trial). */
  fork(salt: number): Rng;
}

export function seedFrom(value: string | number | undefined, fallback: number): number {
  if (value === undefined || value === '') return fallback >>> 0;
  const n = Number(value);
  if (Number.isInteger(n)) return n >>> 0;
  let h = 2166136261;
  for (const ch of String(value)) h = Math.imul(h ^ ch.charCodeAt(0), 16777619);
  return h >>> 0;
}

export function createRng(seed: number): Rng {
  let a = seed >>> 0;
  const next = (): number => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const rng: Rng = {
    seed: seed >>> 0,
    next,
    int: (min, max) => min + Math.floor(next() * (max - min + 1)),
    chance: (p) => next() < p,
    pick: (items) => {
      if (items.length === 0) throw new Error('pick from an empty list');
      return items[Math.floor(next() * items.length)]!;
    },
    weighted: <K extends string>(weights: Partial<Record<K, number>>): K => {
      const entries = Object.entries(weights) as Array<[K, number]>;
      const total = entries.reduce((s, [, w]) => s + w, 0);
      let x = next() * total;
      for (const [k, w] of entries) {
        x -= w;
        if (x < 0) return k;
      }
      return entries[entries.length - 1]![0];
    },
    fork: (salt) => createRng((Math.imul(seed ^ 0x9e3779b9, 0x85ebca6b) + Math.imul(salt, 0xc2b2ae35)) >>> 0),
  };
  return rng;
}

/** Trial counts: modest under `npm test`, full under `npm run test:soak` (TREASURY_SOAK=1). */
export const soak = process.env.TREASURY_SOAK === '1';
export function trials(modest: number, full: number): number {
  const override = Number(process.env.TREASURY_TRIALS_SCALE);
  const base = soak ? full : modest;
  return Number.isFinite(override) && override > 0 ? Math.max(1, Math.round(base * override)) : base;
}

/** The base seed of a run: TREASURY_SEED, or one drawn now (printed so a failure can be replayed). */
export function runSeed(name: string): number {
  const seed = seedFrom(process.env.TREASURY_SEED, (Date.now() ^ (Math.random() * 2 ** 32)) >>> 0);
  console.log(`[reliability] ${name}: seed ${seed} (replay with TREASURY_SEED=${seed})`);
  return seed;
}
