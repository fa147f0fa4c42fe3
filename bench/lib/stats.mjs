/**
 * Percentiles and trial summaries. Every figure the bench reports is a median
 * over repeated trials of a per-trial statistic.
 */

/** The q-quantile (0..1) of an ascending array, nearest-rank. */
export function quantile(sorted, q) {
  if (sorted.length === 0) return NaN;
  const rank = Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1));
  return sorted[rank];
}

/** The median of numbers (any order). */
export function median(values) {
  const sorted = values.filter((v) => Number.isFinite(v)).sort((a, b) => a - b);
  if (sorted.length === 0) return NaN;
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}

/**
 * One trial's latencies (ms) and wall time (ms) → its statistics.
 * @param {number[]} latencies
 * @param {number} wallMs
 */
export function trialStats(latencies, wallMs) {
  const sorted = Float64Array.from(latencies).sort();
  return {
    n: sorted.length,
    p50: quantile(sorted, 0.5),
    p99: quantile(sorted, 0.99),
    max: sorted[sorted.length - 1] ?? NaN,
    perSec: wallMs > 0 ? (sorted.length * 1000) / wallMs : NaN,
  };
}

/**
 * Trials of one measurement → medians over trials, with the per-trial values kept.
 * @param {ReturnType<typeof trialStats>[]} trials
 */
export function summarizeTrials(trials) {
  return {
    trials: trials.length,
    n: trials.reduce((sum, t) => sum + t.n, 0),
    p50: median(trials.map((t) => t.p50)),
    p99: median(trials.map((t) => t.p99)),
    perSec: median(trials.map((t) => t.perSec)),
    perTrial: trials,
  };
}

/** Rounds for JSON and tables without losing what matters. */
export function round(value, digits = 3) {
  if (!Number.isFinite(value)) return null;
  const f = 10 ** digits;
  return Math.round(value * f) / f;
}

/** Deep-rounds every number of a value (for the JSON file). */
export function roundAll(value, digits = 4) {
  if (typeof value === 'number') return round(value, digits);
  if (Array.isArray(value)) return value.map((v) => roundAll(v, digits));
  if (value && typeof value === 'object')
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, roundAll(v, digits)]));
  return value;
}
