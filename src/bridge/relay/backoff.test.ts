import { describe, expect, it } from 'vitest';
import { DEFAULT_BACKOFF, backoffDelay } from './backoff.js';

describe('SPEC §9 jittered reconnect backoff', () => {
  it('the ceiling doubles from 250 ms and stops at the 10 s cap', () => {
    const top = (attempt: number): number => backoffDelay(attempt, () => 1);
    expect([0, 1, 2, 3, 4, 5, 6, 20, 1000].map(top)).toEqual([
      250, 500, 1000, 2000, 4000, 8000, 10_000, 10_000, 10_000,
    ]);
  });

  it('full jitter: the delay is the random fraction of the ceiling', () => {
    expect(backoffDelay(3, () => 0)).toBe(0);
    expect(backoffDelay(3, () => 0.25)).toBe(500);
    expect(backoffDelay(6, () => 0.5)).toBe(DEFAULT_BACKOFF.capMs / 2);
  });

  it('an out-of-range random value is clamped into the ceiling', () => {
    expect(backoffDelay(0, () => 7)).toBe(250);
    expect(backoffDelay(0, () => -1)).toBe(0);
  });
});
