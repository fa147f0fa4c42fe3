import { describe, expect, it } from 'vitest';
import { snapToBars } from './snapRange.js';

describe('snapToBars (what lightweight-charts shows for a requested range)', () => {
  const loaded = { from: 6_000, to: 12_000 };

  it('keeps bar-aligned ends', () => {
    expect(snapToBars({ from: 7_200, to: 9_000 }, loaded, 60)).toEqual({ from: 7_200, to: 9_000 });
  });

  it('moves each end to the next bar start', () => {
    expect(snapToBars({ from: 7_230, to: 8_970 }, loaded, 60)).toEqual({ from: 7_260, to: 9_000 });
  });

  it('clamps to the loaded bars', () => {
    expect(snapToBars({ from: 10, to: 99_999 }, loaded, 300)).toEqual({ from: 6_000, to: 12_000 });
  });
});
