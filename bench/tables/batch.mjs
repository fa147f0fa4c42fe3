/**
 * Table 2, BATCH (SPEC §12): 25 reads in one `tradescript_batch` (one relay
 * round trip, SPEC §3) against the same 25 reads as sequential
 * `tradescript_call`s, over stdio. Target: batch ≤ 0.3 × sequential.
 */
import { runRoundTrips, settle } from '../lib/measure.mjs';
import { roundAll, summarizeTrials, trialStats } from '../lib/stats.mjs';
import { openTerminal, READ_CALL, readCall } from '../lib/tradescript.mjs';

const CALLS = 25;

/** @param {import('../run.mjs').TableContext} ctx */
export async function runBatch(ctx) {
  const terminal = await openTerminal(ctx.h, ctx.browser, 'stdio');
  try {
    const one = readCall(terminal);
    const batchArgs = { sessionId: terminal.sessionId, calls: Array.from({ length: CALLS }, () => ({ ...READ_CALL })) };
    const batch = async () => {
      const result = await terminal.callTool('tradescript_batch', batchArgs);
      const outcomes = result.structuredContent?.data?.outcomes ?? [];
      return result.isError !== true && outcomes.length === CALLS && outcomes.every((o) => o.status === 'fulfilled');
    };
    const sequential = async () => {
      let ok = true;
      for (let i = 0; i < CALLS; i++) ok = (await one()) && ok;
      return ok;
    };
    const rounds = ctx.quick ? 20 : 50;
    ctx.progress('batch: warm-up');
    await runRoundTrips(one, ctx.plan.warmup, 1);
    await runRoundTrips(batch, ctx.quick ? 40 : 100, 1);

    const batches = [];
    const sequences = [];
    let failures = 0;
    for (let t = 0; t < ctx.plan.trials; t++) {
      ctx.progress(`batch: trial ${t + 1}/${ctx.plan.trials}`);
      await settle();
      const b = await runRoundTrips(batch, rounds, 1);
      await settle();
      const s = await runRoundTrips(sequential, rounds, 1);
      batches.push(trialStats(b.latencies, b.wallMs));
      sequences.push(trialStats(s.latencies, s.wallMs));
      failures += b.failures + s.failures;
    }
    const b = summarizeTrials(batches);
    const s = summarizeTrials(sequences);
    return {
      header: ['25 reads as', 'p50 ms', 'p99 ms', 'per read ms', 'reads/s', 'errors'],
      rows: [
        ['one tradescript_batch', b.p50, b.p99, b.p50 / CALLS, Math.round(b.perSec * CALLS), failures],
        ['25 sequential tradescript_call', s.p50, s.p99, s.p50 / CALLS, Math.round(s.perSec * CALLS), ''],
      ],
      checks: [
        {
          name: 'batch of 25 reads vs 25 sequential calls',
          measured: b.p50,
          limit: 0.3 * s.p50,
          unit: ' ms',
          basis: '0.3 × sequential p50',
        },
      ],
      notes: [
        `over stdio; ${ctx.plan.warmup.toLocaleString('en-US')} warm-up calls; ${ctx.plan.trials} trials of ${rounds} ` +
          `batches and ${rounds} × 25 sequential calls, alternating; batch ÷ sequential p50 = ${(b.p50 / s.p50).toFixed(3)}.`,
      ],
      data: roundAll({ batch: b, sequential: s, failures }),
    };
  } finally {
    await terminal.close();
  }
}
