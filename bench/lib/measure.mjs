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
 * Warm-up, then `trials` trials of one-in-flight and of `concurrency`-in-flight
 * round trips, alternating, so drift hits both alike.
 * @param {RoundTrip} op
 * @param {ReturnType<typeof plan>} p
 * @param {{ concurrent?: boolean, onProgress?: (what: string) => void }} [opts]
 */
export async function measureRoundTrip(op, p, opts = {}) {
  const concurrent = opts.concurrent ?? true;
  const warm = await runRoundTrips(op, p.warmup, 1);
  if (warm.failures === p.warmup) throw asError(warm.firstError, 'every warm-up round trip failed');
  if (concurrent) await runRoundTrips(op, p.concurrentWarmup, p.concurrency);
  const one = [];
  const many = [];
  let failures = 0;
  let firstError = null;
  for (let t = 0; t < p.trials; t++) {
    opts.onProgress?.(`trial ${t + 1}/${p.trials}`);
    await settle();
    const a = await runRoundTrips(op, p.sequential, 1);
    one.push(trialStats(a.latencies, a.wallMs));
    failures += a.failures;
    firstError ??= a.firstError;
    if (!concurrent) continue;
    await settle();
    const b = await runRoundTrips(op, p.concurrent, p.concurrency);
    many.push(trialStats(b.latencies, b.wallMs));
    failures += b.failures;
    firstError ??= b.firstError;
  }
  return {
    single: summarizeTrials(one),
    concurrent: concurrent ? summarizeTrials(many) : null,
    concurrency: p.concurrency,
    warmup: p.warmup,
    failures,
    firstError: firstError ? String(firstError instanceof Error ? firstError.message : firstError).slice(0, 300) : null,
  };
}

function asError(error, what) {
  return new Error(`${what}: ${error instanceof Error ? error.message : String(error)}`);
}
