import { describe, expect, it } from 'vitest';
import { LEVELS_PER_SIDE, levelsThatFit } from './levelsThatFit.js';

describe('levelsThatFit: the depth ladder shows whole levels that fit its panel', () => {
  it('a box tall enough for every level shows all of them, and no more', () => {
    expect(levelsThatFit(12 * 16 + 19, 19, 16)).toBe(LEVELS_PER_SIDE);
    expect(levelsThatFit(1000, 19, 16)).toBe(LEVELS_PER_SIDE);
  });

  it('at 1280×720 (a 153.4 px box, 16 px rows, a 19 px spread) shows 4 levels a side: 147 px', () => {
    expect(levelsThatFit(153.4, 19, 16)).toBe(4);
  });

  it('never shows a row the box cannot hold whole: levels × 2 × row + spread stays within the box', () => {
    for (let height = 51; height <= 260; height += 0.5) {
      const shown = levelsThatFit(height, 19, 16);
      expect(shown * 2 * 16 + 19).toBeLessThanOrEqual(height);
      // One more level a side would not fit, unless every level already shows.
      if (shown < LEVELS_PER_SIDE) expect((shown + 1) * 2 * 16 + 19).toBeGreaterThan(height);
    }
  });

  it('keeps the touch (one level a side) in a box too short for it', () => {
    expect(levelsThatFit(30, 19, 16)).toBe(1);
    expect(levelsThatFit(0, 19, 16)).toBe(1);
  });
});
