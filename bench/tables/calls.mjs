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
import { fmt } from '../lib/report.mjs';
import { roundAll } from '../lib/stats.mjs';
import { baselineBin, openTerminal, readCall } from '../lib/tradescript.mjs';
import { measureInSequence, measureInTurns, spread } from './callOrders.mjs';

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
  const run = ctx.callsOrder === 'sequential' ? await measureInSequence(ctx, PATHS) : await measureInTurns(ctx, PATHS);
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
