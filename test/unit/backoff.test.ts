import { describe, expect, it } from 'vitest';
import { backoffDelay } from '../../src/main/infra/backoff';

describe('backoffDelay', () => {
  const schedule = { baseMs: 1000, maxMs: 30_000 };

  it('doubles each step and draws the delay in [half, whole] of the step by default', () => {
    expect(backoffDelay(1, schedule, () => 0)).toBe(500);
    expect(backoffDelay(1, schedule, () => 1)).toBe(1000);
    expect(backoffDelay(2, schedule, () => 1)).toBe(2000);
    expect(backoffDelay(3, schedule, () => 0.5)).toBe(3000);
    expect(backoffDelay(4, schedule, () => 0)).toBe(4000);
  });

  it('caps the step, and the jittered delay, at maxMs', () => {
    for (let n = 6; n < 60; n++) expect(backoffDelay(n, schedule, () => 1)).toBe(30_000);
    const around = { ...schedule, jitter: [0.8, 1.2] as const };
    expect(backoffDelay(1, around, () => 0)).toBe(800);
    expect(backoffDelay(1, around, () => 1)).toBe(1200);
    expect(backoffDelay(20, around, () => 1)).toBe(30_000);
  });

  it('counts a step below 1 as the first', () => {
    expect(backoffDelay(0, schedule, () => 1)).toBe(1000);
  });

  it('stays within the range for any random draw', () => {
    for (let i = 0; i < 200; i++) {
      const d = backoffDelay(3, schedule);
      expect(d).toBeGreaterThanOrEqual(2000);
      expect(d).toBeLessThanOrEqual(4000);
    }
  });
});
