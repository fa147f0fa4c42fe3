/**
 * Where lightweight-charts puts a requested time range: each end moves to the
 * first bar at or after it, inside the loaded bars. The chart applies a range
 * on its next frame, so controls answer with this instead of a stale read.
 */
import type { TimeRange } from './chartModel.js';

/** Snaps both ends to bar starts (multiples of `stepSeconds`) within `loaded`. */
export function snapToBars(range: TimeRange, loaded: TimeRange, stepSeconds: number): TimeRange {
  const snap = (time: number): number =>
    Math.min(Math.max(Math.ceil(time / stepSeconds) * stepSeconds, loaded.from), loaded.to);
  return { from: snap(range.from), to: snap(range.to) };
}
