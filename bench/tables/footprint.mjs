/**
 * Table 5, FOOTPRINT (SPEC §12): start → ready line, idle RSS, RSS with 8
 * paired tabs, and the gzipped browser bundle.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { browserBundle } from '../lib/bundle.mjs';
import { spawnUntilLine, stopChild } from '../lib/processes.mjs';
import { median, roundAll } from '../lib/stats.mjs';
import {
  baselineBin,
  launchOptions,
  measuredRoot,
  REQUEST_OPTIONS,
  READ_CALL,
  serverBin,
} from '../lib/tradescript.mjs';

const READY = 'tradescript-mcp ready ';
const SESSIONS = 8;
const KB = 1024;
const MB = 1024 * 1024;

const SDK_FIXTURE = fileURLToPath(new URL('../fixtures/sdkServer.mjs', import.meta.url));

/** The start-up paths: two anchors (bare Node, the MCP SDK alone), then the CLI's two common modes. */
const MODES = [
  {
    id: 'node',
    label: 'bare node, prints a line (anchor)',
    args: ['-e', `process.stderr.write(${JSON.stringify(READY)} + '{}\\n'); process.stdin.resume()`],
  },
  { id: 'sdk', label: 'MCP SDK alone, stdio (anchor)', args: [SDK_FIXTURE, '--stdio'], prefix: 'sdk-anchor ready ' },
  { id: 'stdio', label: 'tradescript-mcp serve --stdio', cli: ['serve', '--stdio', '--port', '0'] },
  { id: 'demo', label: 'tradescript-mcp demo (HTTP + demo)', cli: ['demo', '--port', '0'] },
];

/** @param {import('../run.mjs').TableContext} ctx */
export async function runFootprint(ctx) {
  const spawns = ctx.quick ? 5 : 10;
  const idleMs = 3_000;
  const baseline = baselineBin();
  const measuredModes = [...MODES, ...(baseline ? beforeModes(baseline) : [])];
  const modes = await startups(serverBin(ctx.h), measuredModes, spawns, idleMs, ctx.progress);
  ctx.progress(`footprint: ${SESSIONS} paired tabs`);
  const sessions = await rssWithSessions(ctx);
  const bundle = browserBundle(measuredRoot(ctx.h));
  // The baseline's built files, sized the same way (its checkout: dist/node/server/bin.js is three levels down).
  const bundleBefore = baseline ? browserBundle(resolve(dirname(baseline), '../../..')) : null;

  const rows = measuredModes.map((m) => [m.label, modes[m.id].readyMs, modes[m.id].readyMin, modes[m.id].rssMB, '']);
  rows.push([`demo with ${SESSIONS} paired tabs, 1 HTTP client`, '', '', sessions.rssMB, `${sessions.paired} paired`]);
  const bundleRows = bundle.groups.flatMap((g) => [
    [g.label, g.files.length > 0 ? 'total' : '', g.rawKB, g.gzKB],
    ...(g.perFile ?? []).map((f) => [`  ${f.file}`, '', f.rawKB, f.gzKB]),
  ]);
  if (bundleBefore) {
    const eager = bundleBefore.groups[0];
    bundleRows.push([`before: ${eager.label}`, 'total', eager.rawKB, eager.gzKB]);
  }
  const checks = [
    { name: 'start → ready, serve --stdio', measured: modes.stdio.readyMs, limit: 300, unit: ' ms', basis: '300 ms' },
    { name: 'start → ready, demo', measured: modes.demo.readyMs, limit: 300, unit: ' ms', basis: '300 ms' },
    ...rssChecks(modes, '', ''),
    ...(baseline ? beforeChecks(modes) : []),
    {
      name: 'browser bundle (SDK + bridge runtime)',
      measured: bundle.eagerGzKB,
      limit: 60,
      unit: ' KB gz',
      basis: '60 KB gzipped',
    },
    ...(bundleBefore
      ? [
          {
            name: 'before: browser bundle (SDK + bridge runtime)',
            measured: bundleBefore.eagerGzKB,
            limit: 60,
            unit: ' KB gz',
            basis: '60 KB gzipped',
            baseline: true,
          },
        ]
      : []),
  ];
  return {
    header: ['process', 'ready ms p50', 'ready ms min', 'RSS MB', 'note'],
    rows,
    extra: { header: ['browser bundle (dist/browser)', '', 'raw KB', 'gzip KB'], rows: bundleRows },
    checks,
    notes: [
      `ready: spawn → the ready line on stderr, median of ${spawns} spawns each, the modes taking turns; RSS (VmRSS) ` +
        `${idleMs / 1000} s after the ready line of each mode's last spawn.`,
      `bundle: Vite manifest closure of the sdk and bridge entries with their worker; gzip -9; ` +
        `lazy (dynamic import) chunks listed apart and not counted.`,
    ],
    data: roundAll({ modes, sessions, bundle, bundleBefore }),
  };
}

/**
 * Idle RSS of `serve --stdio` and `demo` against the MCP SDK alone measured in
 * the same run (SPEC §12: ≤ 1.05 ×).
 */
function rssChecks(modes, prefix, idPrefix) {
  return ['stdio', 'demo'].map((id) => ({
    name: `${prefix}idle RSS, ${id === 'stdio' ? 'serve --stdio' : 'demo'}, vs MCP SDK alone`,
    measured: modes[`${idPrefix}${id}`].rssMB,
    limit: 1.05 * modes.sdk.rssMB,
    unit: ' MB',
    basis: '1.05 × MCP SDK alone',
  }));
}

/** The start-up and RSS checks of the baseline build, shown and not counted. */
function beforeChecks(modes) {
  const ready = ['stdio', 'demo'].map((id) => ({
    name: `before: start → ready, ${id === 'stdio' ? 'serve --stdio' : 'demo'}`,
    measured: modes[`before-${id}`].readyMs,
    limit: 300,
    unit: ' ms',
    basis: '300 ms',
  }));
  return [...ready, ...rssChecks(modes, 'before: ', 'before-')].map((c) => ({ ...c, baseline: true }));
}

/** The CLI modes again, on a baseline build. */
function beforeModes(bin) {
  return MODES.filter((m) => m.cli).map((m) => ({ ...m, id: `before-${m.id}`, label: `before: ${m.label}`, bin }));
}

/**
 * `spawns` cold starts of every mode, the modes taking turns so the machine's
 * drift touches each alike; each mode's last start's RSS after `idleMs`.
 */
async function startups(serverBin, modes, spawns, idleMs, progress) {
  const times = Object.fromEntries(modes.map((m) => [m.id, []]));
  const rss = {};
  for (let i = 0; i < spawns; i++) {
    progress(`footprint: start-ups ${i + 1}/${spawns}`);
    for (const mode of modes) {
      const last = i === spawns - 1;
      const args = mode.cli ? [mode.bin ?? serverBin, ...mode.cli] : mode.args;
      const started = await startOnce(args, mode, last ? idleMs : 0);
      times[mode.id].push(started.readyMs);
      if (last) rss[mode.id] = started.rssMB;
    }
  }
  const summary = (id) => ({
    readyMs: median(times[id]),
    readyMin: Math.min(...times[id]),
    rssMB: rss[id],
    readyTimes: times[id],
  });
  return Object.fromEntries(modes.map((m) => [m.id, summary(m.id)]));
}

/** One cold start to the ready line; its RSS `idleMs` later when asked. */
async function startOnce(args, mode, idleMs) {
  const home = mkdtempSync(join(tmpdir(), 'tradescript-bench-home-'));
  try {
    const { child, readyMs } = await spawnUntilLine(args, {
      prefix: mode.prefix ?? READY,
      env: { ...process.env, TRADESCRIPT_MCP_HOME: home },
    });
    let rssMB = NaN;
    if (idleMs > 0) {
      await new Promise((resolve) => setTimeout(resolve, idleMs));
      rssMB = rssOf(child.pid) / MB;
    }
    child.stdin?.end();
    await stopChild(child);
    return { readyMs, rssMB };
  } finally {
    rmSync(home, { recursive: true, force: true });
  }
}

/** Resident set size in bytes, from /proc. */
export function rssOf(pid) {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = Number(/^VmRSS:\s+(\d+)\s+kB/m.exec(status)?.[1]);
  return kb * KB;
}

/** `demo` with 8 tabs of one origin paired (8 sessions) and one HTTP client that called each once. */
async function rssWithSessions(ctx) {
  const { h, browser } = ctx;
  const server = await h.startServer(['demo'], launchOptions());
  const context = await browser.newContext();
  try {
    const client = await h.connectHttpClient(server.ready.mcpUrl);
    const pages = [];
    for (let i = 0; i < SESSIONS; i++) pages.push(await context.newPage());
    // The first tab pairs by the link; the others share its origin's stored credential (SPEC §2).
    const sessionIds = [await h.pairPage(pages[0], server.ready.pairUrl)];
    for (const page of pages.slice(1)) {
      await page.goto(server.ready.demoUrl);
      await page.waitForFunction(() => window.__tradescriptDemo?.bridgeStatus().state === 'paired', undefined, {
        timeout: 30_000,
        polling: 50,
      });
      sessionIds.push(await page.evaluate(() => window.__tradescriptDemo.bridgeStatus().sessionId));
    }
    for (const sessionId of sessionIds) {
      await client.callTool(
        { name: 'tradescript_call', arguments: { sessionId, ...READ_CALL } },
        undefined,
        REQUEST_OPTIONS,
      );
    }
    await new Promise((resolve) => setTimeout(resolve, 2_000));
    const rssMB = rssOf(server.pid) / MB;
    await client.close();
    return { rssMB, paired: new Set(sessionIds).size };
  } finally {
    await context.close().catch(() => {});
    await server.close();
  }
}
