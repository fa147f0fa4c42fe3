/**
 * Table 2, BATCH (SPEC §12): 25 reads in one `tradescript_batch` (one relay
 * round trip, SPEC §3) against the same 25 reads as sequential
 * `tradescript_call`s, over stdio. Target: batch ≤ 0.3 × sequential. With a
 * baseline build, the same is measured on it right after.
 */
import { runRoundTrips, settle } from '../lib/measure.mjs';
import { roundAll, summarizeTrials, trialStats } from '../lib/stats.mjs';
import { baselineBin, openTerminal, READ_CALL, readCall } from '../lib/tradescript.mjs';

const CALLS = 25;

/** @param {import('../run.mjs').TableContext} ctx */
export async function runBatch(ctx) {
  const rounds = ctx.quick ? 20 : 50;
  const ours = await measureBuild(ctx, rounds, undefined);
  const baseline = baselineBin();
  const before = baseline ? await measureBuild(ctx, rounds, baseline) : null;
  const rowsOf = (m, prefix) => [
    [`${prefix}one tradescript_batch`, m.b.p50, m.b.p99, m.b.p50 / CALLS, Math.round(m.b.perSec * CALLS), m.failures],
    [`${prefix}25 sequential tradescript_call`, m.s.p50, m.s.p99, m.s.p50 / CALLS, Math.round(m.s.perSec * CALLS), ''],
  ];
  const checkOf = (m, prefix) => ({
    name: `${prefix}batch of 25 reads vs 25 sequential calls`,
    measured: m.b.p50,
    limit: 0.3 * m.s.p50,
    unit: ' ms',
    basis: '0.3 × sequential p50',
  });
  return {
    header: ['25 reads as', 'p50 ms', 'p99 ms', 'per read ms', 'reads/s', 'errors'],
    rows: [...(before ? rowsOf(before, 'before: ') : []), ...rowsOf(ours, '')],
    checks: [...(before ? [{ ...checkOf(before, 'before: '), baseline: true }] : []), checkOf(ours, '')],
    notes: [
      `over stdio; ${ctx.plan.warmup.toLocaleString('en-US')} warm-up calls; ${ctx.plan.trials} trials of ${rounds} ` +
        `batches and ${rounds} × 25 sequential calls, alternating; batch ÷ sequential p50 = ${(ours.b.p50 / ours.s.p50).toFixed(3)}.`,
    ],
    data: roundAll({ batch: ours.b, sequential: ours.s, failures: ours.failures, before }),
  };
}

/** One build's batch and sequential trials, alternating. */
async function measureBuild(ctx, rounds, bin) {
  const terminal = await openTerminal(ctx.h, ctx.browser, 'stdio', bin ? { bin } : {});
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
    const label = bin ? 'batch (before)' : 'batch';
    ctx.progress(`${label}: warm-up`);
    await runRoundTrips(one, ctx.plan.warmup, 1);
    await runRoundTrips(batch, ctx.quick ? 40 : 100, 1);
    const batches = [];
    const sequences = [];
    let failures = 0;
    for (let t = 0; t < ctx.plan.trials; t++) {
      ctx.progress(`${label}: trial ${t + 1}/${ctx.plan.trials}`);
      await settle();
      const b = await runRoundTrips(batch, rounds, 1);
      await settle();
      const s = await runRoundTrips(sequential, rounds, 1);
      batches.push(trialStats(b.latencies, b.wallMs));
      sequences.push(trialStats(s.latencies, s.wallMs));
      failures += b.failures + s.failures;
    }
    return { b: summarizeTrials(batches), s: summarizeTrials(sequences), failures };
  } finally {
    await terminal.close();
  }
}
