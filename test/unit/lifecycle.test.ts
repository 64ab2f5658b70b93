import { describe, expect, it } from 'vitest';
import { BackgroundWork, DisposableStore } from '../../src/main/infra/lifecycle';

describe('DisposableStore', () => {
  it('lets go in the reverse order of adding, awaiting each, and only once', async () => {
    const order: string[] = [];
    const store = new DisposableStore();
    store.add(() => void order.push('first'));
    store.add({
      dispose: async () => {
        await new Promise((r) => setTimeout(r, 5));
        order.push('second');
      },
    });
    store.add(() => void order.push('third'));
    await store.dispose();
    await store.dispose();
    expect(order).toEqual(['third', 'second', 'first']);
    expect(store.isDisposed).toBe(true);
    expect(() => store.add(() => undefined)).toThrow(/already disposed/);
  });

  it('a failing dispose does not stop the others; the first failure is thrown after all ran', async () => {
    const order: string[] = [];
    const store = new DisposableStore();
    store.add(() => void order.push('a'));
    store.add(() => {
      throw new Error('b failed');
    });
    store.add(() => {
      throw new Error('c failed');
    });
    await expect(store.dispose()).rejects.toThrow('c failed');
    expect(order).toEqual(['a']);
  });
});

describe('BackgroundWork', () => {
  it('settles only after every tracked piece, including work tracked while waiting, has settled', async () => {
    const work = new BackgroundWork();
    const done: string[] = [];
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    work.track(
      gate.then(() => {
        done.push('first');
        work.track(
          new Promise<void>((r) => setTimeout(r, 20)).then(() => {
            done.push('second');
          }),
        );
      }),
    );
    work.track(Promise.reject(new Error('a failure is the caller’s to handle')));
    let settled = false;
    const waiting = work.settled().then(() => (settled = true));
    await new Promise((r) => setTimeout(r, 10));
    expect(settled).toBe(false);
    release();
    await waiting;
    expect(done).toEqual(['first', 'second']);
  });

  it('settles at once when nothing runs', async () => {
    await expect(new BackgroundWork().settled()).resolves.toBeUndefined();
  });
});
