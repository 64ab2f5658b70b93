/**
 * Sandbox time: real time plus an offset that only grows. The scheduler runs callbacks at a
 * sandbox time, either when a real timer fires or at once when the clock is advanced past them.
 */
export class Clock {
  private offsetMs = 0;
  private listeners = new Set<() => void>();

  now(): number {
    return Date.now() + this.offsetMs;
  }

  get offsetSeconds(): number {
    return this.offsetMs / 1000;
  }

  advance(seconds: number): void {
    this.offsetMs += seconds * 1000;
    for (const l of this.listeners) l();
  }

  onAdvance(fn: () => void): () => void {
    this.listeners.add(fn);
    return () => this.listeners.delete(fn);
  }
}

interface Task {
  at: number;
  seq: number;
  fn: () => void;
}

const MAX_TIMER_MS = 2 ** 31 - 1;

/** A min-heap of tasks keyed by sandbox time. */
export class Scheduler {
  private heap: Task[] = [];
  private seq = 0;
  private timer: NodeJS.Timeout | null = null;
  private armedFor = Infinity;
  private stopped = false;
  private running = false;
  private readonly unsubscribe: () => void;

  constructor(
    private readonly clock: Clock,
    private readonly onError: (err: unknown) => void = () => {},
  ) {
    this.unsubscribe = clock.onAdvance(() => this.runDue());
  }

  at(time: number, fn: () => void): void {
    if (this.stopped) return;
    this.push({ at: time, seq: this.seq++, fn });
    if (time < this.armedFor) this.arm();
  }

  get size(): number {
    return this.heap.length;
  }

  /** Runs every task whose time has come (in time order), then re-arms the timer. */
  runDue(): void {
    if (this.stopped || this.running) return;
    this.running = true;
    try {
      for (;;) {
        const top = this.heap[0];
        if (!top || top.at > this.clock.now()) break;
        this.pop();
        try {
          top.fn();
        } catch (err) {
          this.onError(err);
        }
      }
    } finally {
      this.running = false;
    }
    this.arm();
  }

  stop(): void {
    this.stopped = true;
    this.unsubscribe();
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    this.heap = [];
  }

  private arm(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    this.armedFor = Infinity;
    const top = this.heap[0];
    if (!top || this.stopped) return;
    const delay = Math.min(Math.max(0, top.at - this.clock.now()), MAX_TIMER_MS);
    this.armedFor = top.at;
    this.timer = setTimeout(() => {
      this.timer = null;
      this.armedFor = Infinity;
      this.runDue();
    }, delay);
    this.timer.unref?.();
  }

  private less(a: Task, b: Task): boolean {
    return a.at < b.at || (a.at === b.at && a.seq < b.seq);
  }

  private push(t: Task): void {
    const h = this.heap;
    h.push(t);
    let i = h.length - 1;
    while (i > 0) {
      const p = (i - 1) >> 1;
      const pi = h[p] as Task;
      if (!this.less(t, pi)) break;
      h[i] = pi;
      i = p;
    }
    h[i] = t;
  }

  private pop(): Task | undefined {
    const h = this.heap;
    const top = h[0];
    const last = h.pop();
    if (h.length === 0 || !last) return top;
    let i = 0;
    for (;;) {
      const l = 2 * i + 1;
      const r = l + 1;
      let m = i;
      let mv = last;
      const lv = h[l];
      const rv = h[r];
      if (lv && this.less(lv, mv)) {
        m = l;
        mv = lv;
      }
      if (rv && this.less(rv, mv)) {
        m = r;
        mv = rv;
      }
      if (m === i) break;
      h[i] = mv;
      i = m;
    }
    h[i] = last;
    return top;
  }
}

export function iso(ms: number): string {
  return new Date(ms).toISOString();
}
