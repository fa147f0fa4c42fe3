/**
 * Table 1, CALL ROUND TRIP (SPEC §12): `tradescript_call` of a trivial read
 * (`chart.getVisibleRange` on the demo's main chart) over stdio and Streamable
 * HTTP, against anchors measured in the same run: the ws floor, the MCP SDK
 * alone over stdio and HTTP, and the peer relay.
 *
 * The paths take turns (the default): every path opens up front in the run's
 * browser and gets its warm-up, then the trials run in rounds, each path one
 * trial per round, the order rotating every round (bench/lib/turns.mjs), so
 * every path's trials spread over the same minutes and a §12 ratio compares
 * rows measured under the same load. Each path keeps the conditions it had when
 * measured alone: a demo terminal's market ticks only during its own warm-up
 * and turns; while any other path takes its turn every demo is paused, so the
 * anchors still run in a browser where no live demo ticks.
 * `--calls-order sequential` measures each path in one go, one after another,
 * the floor first and last (pooled), as before s17.
 */
import { openPeer } from '../anchors/peer.mjs';
import { openSdkHttp, openSdkStdio } from '../anchors/sdkAlone.mjs';
import { openWsFloor } from '../anchors/wsFloor.mjs';
import { measureRoundTrip, runTrial, summarizePath, warmUp } from '../lib/measure.mjs';
import { fmt } from '../lib/report.mjs';
import { median, roundAll, summarizeTrials } from '../lib/stats.mjs';
import { baselineBin, MARKET_SETTLE_MS, openTerminal, readCall, setDemoMarket } from '../lib/tradescript.mjs';
import { takeTurns } from '../lib/turns.mjs';

const BASELINE = baselineBin();

/**
 * The paths, in listing order (taking turns: the first round's order; in
 * sequence: the measuring order, where `floor` runs twice, first and last, to
 * show drift). With a baseline build, its two paths come right before ours.
 * `demo`: the path's page is a demo terminal with a live market.
 */
const PATHS = [
  { id: 'floor', label: 'ws floor: Node ↔ page echo', open: (c) => openWsFloor(c.h, c.browser) },
  { id: 'sdkStdio', label: 'MCP SDK alone, stdio', open: () => openSdkStdio() },
  { id: 'sdkHttp', label: 'MCP SDK alone, HTTP', open: (c) => openSdkHttp(c.h) },
  { id: 'sdkHttp2026', label: 'MCP SDK alone, HTTP 2026-07-28 (stateless)', open: (c) => openSdkHttp(c.h, true) },
  { id: 'peer', label: 'peer webmcp-local-relay, stdio', open: (c) => openPeer(c.h, c.browser) },
  {
    id: 'workerFloor',
    label: 'ws echo via worker ↔ main (info)',
    open: (c) => openWsFloor(c.h, c.browser, { viaWorker: true }),
  },
  ...(BASELINE
    ? [
        {
          id: 'beforeStdio',
          label: 'before: tradescript_call, stdio',
          demo: true,
          open: (c) => openOurs(c, 'stdio', BASELINE),
        },
      ]
    : []),
  { id: 'stdio', label: 'tradescript_call, stdio', demo: true, open: (c) => openOurs(c, 'stdio') },
  ...(BASELINE
    ? [
        {
          id: 'beforeHttp',
          label: 'before: tradescript_call, HTTP',
          demo: true,
          open: (c) => openOurs(c, 'http', BASELINE),
        },
      ]
    : []),
  { id: 'http', label: 'tradescript_call, HTTP', demo: true, open: (c) => openOurs(c, 'http') },
  {
    id: 'http2026',
    label: 'tradescript_call, HTTP 2026-07-28 (stateless)',
    demo: true,
    open: (c) => openOurs(c, 'http', undefined, 'modern'),
  },
  { id: 'floor', label: 'ws floor (again)', again: true, open: (c) => openWsFloor(c.h, c.browser) },
];

async function openOurs(ctx, transport, bin, era) {
  const terminal = await openTerminal(ctx.h, ctx.browser, transport, {
    ...(bin ? { bin } : {}),
    ...(era ? { era } : {}),
  });
  return { call: readCall(terminal), page: terminal.page, close: terminal.close };
}

/** @param {import('../run.mjs').TableContext} ctx */
export async function runCalls(ctx) {
  const run = ctx.callsOrder === 'sequential' ? await measureInSequence(ctx) : await measureInTurns(ctx);
  const { measured, failed } = run;
  const floor = measured.floor;
  const rows = [];
  const shown = new Set();
  for (const path of PATHS) {
    if (shown.has(path.id)) continue;
    shown.add(path.id);
    const m = measured[path.id];
    const label = path.id === 'floor' ? 'ws floor: Node ↔ page echo' : path.label;
    if (!m) {
      rows.push([label, 'failed', '', '', '', '', '', '', failed[path.id] ?? '']);
      continue;
    }
    rows.push([
      label,
      m.single.p50,
      m.single.p99,
      Math.round(m.single.perSec),
      Math.round(m.concurrent.perSec),
      floor ? `${fmt(m.single.p50 / floor.single.p50)}×` : '—',
      spread(m.single.perTrial.map((t) => t.p50)),
      m.failures,
      '',
    ]);
  }

  const checks = [
    ...callChecks(measured, 'stdio', 'http', ''),
    {
      name: 'HTTP 2026-07-28 call p50 vs floor + SDK HTTP 2026-07-28',
      measured: measured.http2026?.single.p50 ?? NaN,
      limit: 1.3 * ((measured.floor?.single.p50 ?? NaN) + (measured.sdkHttp2026?.single.p50 ?? NaN)),
      unit: ' ms',
      basis: '1.3 × (floor + SDK HTTP 2026) p50',
    },
    ...(BASELINE
      ? callChecks(measured, 'beforeStdio', 'beforeHttp', 'before: ').map((c) => ({ ...c, baseline: true }))
      : []),
  ];

  const notes = [
    `${ctx.plan.warmup.toLocaleString('en-US')} warm-up calls per path (+${ctx.plan.concurrentWarmup} with 8 in flight); ` +
      `${ctx.plan.trials} trials of ${ctx.plan.sequential} calls one at a time and ${ctx.plan.concurrent} with ` +
      `${ctx.plan.concurrency} in flight; medians over trials. "p50 over trials": lowest–highest trial p50.`,
    ...run.notes,
  ];
  return {
    header: ['path', 'p50 ms', 'p99 ms', 'calls/s 1', 'calls/s 8', 'p50/floor', 'p50 over trials', 'errors', 'note'],
    rows,
    checks,
    notes,
    data: { order: ctx.callsOrder, paths: roundAll(measured), failed, ...run.data },
  };
}

/**
 * Taking turns: every path opened up front (a demo's market paused at once),
 * warmed up, then `plan.trials` rounds of one trial per path, rotating.
 * @param {import('../run.mjs').TableContext} ctx
 */
async function measureInTurns(ctx) {
  const paths = PATHS.filter((p) => !p.again);
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
 */
async function measureInSequence(ctx) {
  /** @type {Record<string, any>} */
  const measured = {};
  /** @type {Record<string, string>} */
  const failed = {};
  const floorRuns = [];
  for (const path of PATHS) {
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
function spread(values) {
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
      `${id} p50 / (${factor} × ${anchors.join(' + ')}) round by round: ${ratios.map((r) => fmt(r)).join(', ')} ` +
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

/**
 * The SPEC §12 call checks of one build's stdio and HTTP paths.
 * @param {Record<string, any>} measured
 */
function callChecks(measured, stdio, http, prefix) {
  const p = (id, key) => measured[id]?.single[key] ?? NaN;
  return [
    {
      name: `${prefix}stdio call p50 vs floor + SDK stdio`,
      measured: p(stdio, 'p50'),
      limit: 1.3 * (p('floor', 'p50') + p('sdkStdio', 'p50')),
      unit: ' ms',
      basis: '1.3 × (floor + SDK stdio) p50',
    },
    {
      name: `${prefix}stdio call p50 vs peer`,
      measured: p(stdio, 'p50'),
      limit: 0.6 * p('peer', 'p50'),
      unit: ' ms',
      basis: '0.6 × peer p50',
    },
    {
      name: `${prefix}stdio call p99 vs peer`,
      measured: p(stdio, 'p99'),
      limit: 0.6 * p('peer', 'p99'),
      unit: ' ms',
      basis: '0.6 × peer p99',
    },
    {
      name: `${prefix}stdio calls/s, 8 callers, vs floor`,
      measured: measured[stdio]?.concurrent.perSec ?? NaN,
      limit: 0.7 * (measured.floor?.concurrent.perSec ?? NaN),
      unit: '/s',
      higherIsBetter: true,
      basis: '0.7 × floor, 8 in flight',
    },
    {
      name: `${prefix}HTTP call p50 vs floor + SDK HTTP`,
      measured: p(http, 'p50'),
      limit: 1.3 * (p('floor', 'p50') + p('sdkHttp', 'p50')),
      unit: ' ms',
      basis: '1.3 × (floor + SDK HTTP) p50',
    },
  ];
}
