import { createHash } from 'node:crypto';

/** Deterministic ids for a given seed: sha256(seed, counter). */
export class IdGen {
  private n = 0;
  constructor(private readonly seed: string) {}

  hex(len: number): string {
    const out: string[] = [];
    let got = 0;
    while (got < len) {
      const h = createHash('sha256').update(`${this.seed}:${this.n++}`).digest('hex');
      out.push(h);
      got += h.length;
    }
    return out.join('').slice(0, len);
  }

  id(prefix: string): string {
    return `${prefix}_${this.hex(20)}`;
  }

  /** Uniform float in [0, 1) from the stream. */
  float(): number {
    return Number.parseInt(this.hex(12), 16) / 2 ** 48;
  }

  int(min: number, max: number): number {
    return min + Math.floor(this.float() * (max - min + 1));
  }
}
