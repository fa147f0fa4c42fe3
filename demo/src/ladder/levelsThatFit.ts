/** How many depth levels the ladder shows each side of the spread, and how many of them fit its panel. */

/** Levels each side of the spread the ladder paints. */
export const LEVELS_PER_SIDE = 6;

/**
 * How many levels each side of the spread fit in a rows box `height` px tall, with a spread row
 * `spreadHeight` px and level rows `rowHeight` px tall: whole rows only, the same number each side, at least
 * one and at most {@link LEVELS_PER_SIDE}.
 */
export function levelsThatFit(height: number, spreadHeight: number, rowHeight: number): number {
  const fit = Math.floor((height - spreadHeight) / 2 / rowHeight);
  return Math.min(LEVELS_PER_SIDE, Math.max(1, fit));
}
