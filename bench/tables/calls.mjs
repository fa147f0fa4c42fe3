/**
 * Table 1, CALL ROUND TRIP (SPEC §12): `tradescript_call` of a trivial read
 * (`chart.getVisibleRange` on the demo's main chart) over stdio and Streamable
 * HTTP, against anchors measured in the same run: the ws floor (measured first
 * and last, pooled), the MCP SDK alone over stdio and HTTP, and the peer relay.
 */
import { openPeer } from '../anchors/peer.mjs';
import { openSdkHttp, openSdkStdio } from '../anchors/sdkAlone.mjs';
import { openWsFloor } from '../anchors/wsFloor.mjs';
import { measureRoundTrip } from '../lib/measure.mjs';
import { fmt } from '../lib/report.mjs';
import { roundAll, summarizeTrials } from '../lib/stats.mjs';
import { baselineBin, openTerminal, readCall } from '../lib/tradescript.mjs';

const BASELINE = baselineBin();

/**
 * The paths, in measuring order. `floor` runs twice (first and last) to show
 * drift. With a baseline build, its two paths run right before ours.
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
    ? [{ id: 'beforeStdio', label: 'before: tradescript_call, stdio', open: (c) => openOurs(c, 'stdio', BASELINE) }]
    : []),
  { id: 'stdio', label: 'tradescript_call, stdio', open: (c) => openOurs(c, 'stdio') },
  ...(BASELINE
    ? [{ id: 'beforeHttp', label: 'before: tradescript_call, HTTP', open: (c) => openOurs(c, 'http', BASELINE) }]
    : []),
  { id: 'http', label: 'tradescript_call, HTTP', open: (c) => openOurs(c, 'http') },
  {
    id: 'http2026',
    label: 'tradescript_call, HTTP 2026-07-28 (stateless)',
    open: (c) => openOurs(c, 'http', undefined, 'modern'),
  },
  { id: 'floor', label: 'ws floor (again)', open: (c) => openWsFloor(c.h, c.browser) },
];

async function openOurs(ctx, transport, bin, era) {
  const terminal = await openTerminal(ctx.h, ctx.browser, transport, {
    ...(bin ? { bin } : {}),
    ...(era ? { era } : {}),
  });
  return { call: readCall(terminal), close: terminal.close };
}

/** @param {import('../run.mjs').TableContext} ctx */
export async function runCalls(ctx) {
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

  const floor = measured.floor;
  const rows = [];
  const shown = new Set();
  for (const path of PATHS) {
    if (shown.has(path.id)) continue;
    shown.add(path.id);
    const m = measured[path.id];
    const label = path.id === 'floor' ? 'ws floor: Node ↔ page echo' : path.label;
    if (!m) {
      rows.push([label, 'failed', '', '', '', '', '', failed[path.id] ?? '']);
      continue;
    }
    rows.push([
      label,
      m.single.p50,
      m.single.p99,
      Math.round(m.single.perSec),
      Math.round(m.concurrent.perSec),
      floor ? `${fmt(m.single.p50 / floor.single.p50)}×` : '—',
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
      `${ctx.plan.concurrency} in flight; medians over trials.`,
  ];
  if (floorRuns.length === 2) {
    notes.push(
      `floor p50 first ${fmt(floorRuns[0].single.p50)} ms, last ${fmt(floorRuns[1].single.p50)} ms (pooled above): the run's drift.`,
    );
  }
  return {
    header: ['path', 'p50 ms', 'p99 ms', 'calls/s 1', 'calls/s 8', 'p50/floor', 'errors', 'note'],
    rows,
    checks,
    notes,
    data: { paths: roundAll(measured), floorRuns: roundAll(floorRuns), failed },
  };
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
