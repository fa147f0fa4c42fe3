/**
 * Table 1's two measuring orders: the paths taking turns (the default) or in
 * sequence (`--calls-order sequential`, the order before s17). Both answer
 * each path's measurement (the shape of `measureRoundTrip`), what failed, notes
 * and data for the JSON file.
 */
import { measureRoundTrip, runTrial, summarizePath, warmUp } from '../lib/measure.mjs';
import { fmt } from '../lib/report.mjs';
import { median, roundAll, summarizeTrials } from '../lib/stats.mjs';
import { MARKET_SETTLE_MS, setDemoMarket } from '../lib/tradescript.mjs';
import { takeTurns } from '../lib/turns.mjs';

/**
 * One path of table 1: `open` answers its round trip (`echo` or `call`), its
 * page (`demo` paths: the demo terminal) and `close`. `again`: a second
 * measurement of a path (the floor, last), measured only in sequence.
 * @typedef {{ id: string, label: string, demo?: boolean, again?: boolean, open: (ctx: any) => Promise<any> }} CallPath
 */

/**
 * Taking turns: every path opened up front (a demo's market paused at once),
 * warmed up, then `plan.trials` rounds of one trial per path, rotating.
 * @param {import('../run.mjs').TableContext} ctx
 * @param {CallPath[]} allPaths
 */
export async function measureInTurns(ctx, allPaths) {
  const paths = allPaths.filter((p) => !p.again);
  /** @type {Record<string, string>} */
  const failed = {};
  const why = (error) => (error instanceof Error ? error.message.split('\n')[0] : String(error));
  /** @type {Map<typeof paths[number], any>} */
  const opened = new Map();
  /** @type {Record<string, Awaited<ReturnType<typeof runTrial>>[]>} */
  const trials = {};
  /** @type {Record<string, { round: number, slot: number, atS: number, p50: number, p99: number, perSec8: number | null }[]>} */
  const perRound = {};
  const started = performance.now();
  try {
    for (const path of paths) {
      ctx.progress(`opening ${path.label}`);
      try {
        const handle = await path.open(ctx);
        opened.set(path, handle);
        if (path.demo) await setDemoMarket(handle.page, false);
      } catch (error) {
        failed[path.id] = why(error);
      }
    }
    const live = [...opened.keys()];
    const op = (path) => opened.get(path).echo ?? opened.get(path).call;
    const orders = await takeTurns(live, {
      rounds: ctx.plan.trials,
      live: (path) => path.demo === true,
      pause: (path) => setDemoMarket(opened.get(path).page, false),
      resume: (path) => setDemoMarket(opened.get(path).page, true),
      warm: async (path) => {
        ctx.progress(`${path.label}: warm-up`);
        await warmUp(op(path), ctx.plan);
      },
      turn: async (path, round, slot) => {
        ctx.progress(`round ${round + 1}/${ctx.plan.trials}: ${path.label}`);
        const trial = await runTrial(op(path), ctx.plan);
        (trials[path.id] ??= []).push(trial);
        (perRound[path.id] ??= []).push({
          round,
          slot,
          atS: (performance.now() - started) / 1000,
          p50: trial.single.p50,
          p99: trial.single.p99,
          perSec8: trial.concurrent?.perSec ?? null,
        });
      },
      failed: (path, error) => {
        failed[path.id] = why(error);
      },
    });
    /** @type {Record<string, any>} */
    const measured = {};
    for (const path of live)
      if (!failed[path.id] && trials[path.id]) measured[path.id] = summarizePath(trials[path.id], ctx.plan);
    return {
      measured,
      failed,
      notes: [
        `Paths took turns: ${ctx.plan.trials} rounds, each path one trial per round, the order rotating every round; ` +
          `a demo's market ticked only in its own warm-up and turns (paused otherwise, resumed ${MARKET_SETTLE_MS} ms before).`,
        ...(measured.floor ? [floorNote(perRound.floor)] : []),
        ...roundVerdicts(perRound),
      ],
      data: {
        rounds: orders.map((order, round) => ({ round, order: order.map((p) => p.id) })),
        perRound: roundAll(perRound),
        // As in sequence, where the floor ran twice: here one run, its trials the rounds.
        floorRuns: roundAll(measured.floor ? [measured.floor] : []),
      },
    };
  } finally {
    for (const handle of opened.values()) await handle.close().catch(() => {});
  }
}

/**
 * In sequence (`--calls-order sequential`): each path opened, measured in one
 * go and closed, one after another, the floor first and last (pooled).
 * @param {import('../run.mjs').TableContext} ctx
 * @param {CallPath[]} paths
 */
export async function measureInSequence(ctx, paths) {
  /** @type {Record<string, any>} */
  const measured = {};
  /** @type {Record<string, string>} */
  const failed = {};
  const floorRuns = [];
  for (const path of paths) {
    ctx.progress(path.label);
    let handle;
    try {
      handle = await path.open(ctx);
      const op = handle.echo ?? handle.call;
      const result = await measureRoundTrip(op, ctx.plan, { onProgress: (s) => ctx.progress(`${path.label}: ${s}`) });
      if (path.id === 'floor') floorRuns.push(result);
      else measured[path.id] = result;
    } catch (error) {
      failed[path.id] = error instanceof Error ? error.message.split('\n')[0] : String(error);
    } finally {
      await handle?.close().catch(() => {});
    }
  }
  if (floorRuns.length > 0) measured.floor = poolFloor(floorRuns);
  const notes = ['Paths measured in sequence (--calls-order sequential), each in one go.'];
  if (floorRuns.length === 2) {
    notes.push(
      `floor p50 first ${fmt(floorRuns[0].single.p50)} ms, last ${fmt(floorRuns[1].single.p50)} ms (pooled above): the run's drift.`,
    );
  }
  return { measured, failed, notes, data: { floorRuns: roundAll(floorRuns) } };
}

/** Lowest–highest of numbers, as a cell. */
export function spread(values) {
  const finite = values.filter((v) => Number.isFinite(v));
  return finite.length === 0 ? '—' : `${fmt(Math.min(...finite))}–${fmt(Math.max(...finite))}`;
}

/** The floor's p50 round by round: the run's drift, now spread over the same minutes as every row. */
function floorNote(rounds) {
  const p50s = rounds.map((r) => r.p50);
  return (
    `floor p50 over rounds ${spread(p50s)} ms (median ${fmt(median(p50s))}; round by round ` +
    `${p50s.map((x) => fmt(x)).join(', ')}): the run's drift.`
  );
}

/** Each §12 p50 limit judged round by round: the path's trial against the limit from its anchors' trials of that round. */
function roundVerdicts(perRound) {
  const limits = [
    ['stdio', 1.3, ['floor', 'sdkStdio']],
    ['stdio', 0.6, ['peer']],
    ['http', 1.3, ['floor', 'sdkHttp']],
    ['http2026', 1.3, ['floor', 'sdkHttp2026']],
    ['beforeStdio', 1.3, ['floor', 'sdkStdio']],
    ['beforeHttp', 1.3, ['floor', 'sdkHttp']],
  ];
  const lines = [];
  for (const [id, factor, anchors] of limits) {
    if (![id, ...anchors].every((a) => perRound[a])) continue;
    const ratios = perRound[id].map(({ round, p50 }) => {
      const anchorSum = anchors.reduce((sum, a) => sum + (perRound[a].find((r) => r.round === round)?.p50 ?? NaN), 0);
      return p50 / (factor * anchorSum);
    });
    const within = ratios.filter((r) => r <= 1).length;
    lines.push(
      `${id} p50 / (${factor} × (${anchors.join(' + ')})) round by round: ${ratios.map((r) => fmt(r)).join(', ')} ` +
        `(within the limit in ${within} of ${ratios.length})`,
    );
  }
  return lines;
}

/** The two floor runs as one measurement: their trials pooled. */
function poolFloor(runs) {
  return {
    single: summarizeTrials(runs.flatMap((r) => r.single.perTrial)),
    concurrent: summarizeTrials(runs.flatMap((r) => r.concurrent.perTrial)),
    concurrency: runs[0].concurrency,
    warmup: runs[0].warmup,
    failures: runs.reduce((sum, r) => sum + r.failures, 0),
    firstError: runs.find((r) => r.firstError)?.firstError ?? null,
  };
}
