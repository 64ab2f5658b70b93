import { describe, expect, it } from 'vitest';
import { DisposableStore } from '../../src/main/infra/lifecycle';

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
