/**
 * Teardown in one place (the idea of VS Code's DisposableStore): what is built registers how it is
 * let go, and the store lets everything go in the reverse order it was added, each awaited, so a
 * service is always disposed before what it was built on. A failing dispose does not stop the
 * others; the first failure is thrown once all have run.
 */

export type Disposable = { dispose(): unknown } | (() => unknown);

export class DisposableStore {
  private readonly items: Disposable[] = [];
  private disposed = false;

  /** Registers something to let go; answers it, so `const x = store.add(create())` reads naturally. */
  add<T extends Disposable>(item: T): T {
    if (this.disposed) throw new Error('This store was already disposed.');
    this.items.push(item);
    return item;
  }

  get isDisposed(): boolean {
    return this.disposed;
  }

  async dispose(): Promise<void> {
    if (this.disposed) return;
    this.disposed = true;
    let first: unknown = null;
    for (const item of this.items.splice(0).reverse()) {
      try {
        await (typeof item === 'function' ? item() : item.dispose());
      } catch (err) {
        first ??= err;
      }
    }
    if (first !== null) throw first;
  }
}

/**
 * Work started in the background (not awaited by whoever started it) that teardown must still
 * wait for, so nothing writes into the data folder after its owner is disposed.
 */
export class BackgroundWork {
  private readonly running = new Set<Promise<unknown>>();

  /** Tracks a piece of work until it settles; its failure is the caller's to handle. */
  track(work: Promise<unknown>): void {
    const p = work.finally(() => this.running.delete(p));
    p.catch(() => undefined);
    this.running.add(p);
  }

  /** Settles once every piece tracked so far (and any tracked meanwhile) has settled. */
  async settled(): Promise<void> {
    while (this.running.size > 0) await Promise.allSettled([...this.running]);
  }
}
