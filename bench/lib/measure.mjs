/**
 * Round-trip measurement: warm-up, then repeated trials, one in flight or N in
 * flight. `op` is any async round trip (an MCP call, a WebSocket echo …); it
 * throws or returns false on a failed round trip, which is counted, never timed.
 */
import { setImmediate as tick } from 'node:timers/promises';
import { summarizeTrials, trialStats } from './stats.mjs';

/**
 * How much of everything to do. Latencies here read about 2× high under
 * ~2,000 warm-up calls (JIT of client, server and page), so every path is
 * warmed with 2,000 calls, `--quick` too; `--quick` runs fewer, shorter trials.
 */
export function plan(quick) {
  return quick
    ? { warmup: 2_000, concurrentWarmup: 200, trials: 3, sequential: 300, concurrent: 600, concurrency: 8 }
    : { warmup: 2_000, concurrentWarmup: 500, trials: 5, sequential: 1_000, concurrent: 1_000, concurrency: 8 };
}

/** @typedef {() => Promise<boolean | void>} RoundTrip */

/** Runs `count` round trips with `concurrency` callers; returns latencies, wall time and failures. */
export async function runRoundTrips(op, count, concurrency = 1) {
  const latencies = new Float64Array(count);
  let next = 0;
  let failures = 0;
  let firstError = null;
  const worker = async () => {
    for (;;) {
      const i = next++;
      if (i >= count) return;
      const t0 = performance.now();
      let ok;
      try {
        ok = (await op()) !== false;
      } catch (error) {
        ok = false;
        firstError ??= error;
      }
      latencies[i] = performance.now() - t0;
      if (!ok) failures++;
    }
  };
  const started = performance.now();
  await Promise.all(Array.from({ length: Math.min(concurrency, count) }, worker));
  const wallMs = performance.now() - started;
  return { latencies: Array.from(latencies), wallMs, failures, firstError };
}

/** A GC between trials (the bench runs with --expose-gc) so one trial's garbage is not the next one's pause. */
export async function settle() {
  globalThis.gc?.();
  await tick();
}

/**
 * A path's warm-up: `p.warmup` calls one at a time, then (`concurrent`)
 * `p.concurrentWarmup` with `p.concurrency` in flight. Throws when every
 * one-at-a-time call failed.
 * @param {RoundTrip} op
 * @param {ReturnType<typeof plan>} p
 */
export async function warmUp(op, p, concurrent = true) {
  const warm = await runRoundTrips(op, p.warmup, 1);
  if (warm.failures === p.warmup) throw asError(warm.firstError, 'every warm-up round trip failed');
  if (concurrent) await runRoundTrips(op, p.concurrentWarmup, p.concurrency);
}

/**
 * One trial: `p.sequential` round trips one at a time, then (`concurrent`)
 * `p.concurrent` with `p.concurrency` in flight, a GC before each.
 * @param {RoundTrip} op
 * @param {ReturnType<typeof plan>} p
 */
export async function runTrial(op, p, concurrent = true) {
  await settle();
  const a = await runRoundTrips(op, p.sequential, 1);
  const b = concurrent ? (await settle(), await runRoundTrips(op, p.concurrent, p.concurrency)) : null;
  return {
    single: trialStats(a.latencies, a.wallMs),
    concurrent: b ? trialStats(b.latencies, b.wallMs) : null,
    failures: a.failures + (b?.failures ?? 0),
    firstError: a.firstError ?? b?.firstError ?? null,
  };
}

/**
 * Trials of one path (from {@link runTrial}) → its measurement: medians over
 * trials of one-in-flight and of `p.concurrency`-in-flight, failures summed.
 * @param {Awaited<ReturnType<typeof runTrial>>[]} trials
 * @param {ReturnType<typeof plan>} p
 */
export function summarizePath(trials, p, concurrent = true) {
  const firstError = trials.find((t) => t.firstError)?.firstError ?? null;
  return {
    single: summarizeTrials(trials.map((t) => t.single)),
    concurrent: concurrent ? summarizeTrials(trials.map((t) => /** @type {any} */ (t.concurrent))) : null,
    concurrency: p.concurrency,
    warmup: p.warmup,
    failures: trials.reduce((sum, t) => sum + t.failures, 0),
    firstError: firstError ? String(firstError instanceof Error ? firstError.message : firstError).slice(0, 300) : null,
  };
}

/**
 * Warm-up, then `trials` trials of one-in-flight and of `concurrency`-in-flight
 * round trips, alternating, so drift hits both alike.
 * @param {RoundTrip} op
 * @param {ReturnType<typeof plan>} p
 * @param {{ concurrent?: boolean, onProgress?: (what: string) => void }} [opts]
 */
export async function measureRoundTrip(op, p, opts = {}) {
  const concurrent = opts.concurrent ?? true;
  await warmUp(op, p, concurrent);
  const trials = [];
  for (let t = 0; t < p.trials; t++) {
    opts.onProgress?.(`trial ${t + 1}/${p.trials}`);
    trials.push(await runTrial(op, p, concurrent));
  }
  return summarizePath(trials, p, concurrent);
}

function asError(error, what) {
  return new Error(`${what}: ${error instanceof Error ? error.message : String(error)}`);
}
