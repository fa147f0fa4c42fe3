#!/usr/bin/env node
/**
 * Where the slow 1 % of one-caller `tradescript_call`s (and the median ones)
 * spend their time, hop by hop (issue 15, SPEC §12's stdio p99):
 *
 *   flock /tmp/bench.lock node --expose-gc bench/tailCalls.mjs [calls=1000] [--rounds=3] [--live-only]
 *
 * Table 1's call (`chart.getVisibleRange` on the demo's main chart, stdio) on
 * the live demo terminal, then the same on a demo whose market does not tick
 * (`?market=paused`: information, never the headline), taking turns round by
 * round (the order flips every round). Per round and terminal, a fresh server
 * and tab: warm-up, a plain run of `calls` calls (p50, p99), then a traced
 * run, each call cut into the hops of lib/callHops.mjs from: the bench's
 * clock around each call; the server's I/O, CPU and GC times (it runs under
 * lib/hopTimes.mjs, which wraps its sockets; nothing in the product changes);
 * a Chromium trace (top-level tasks, devtools.timeline: WebSocket instants in
 * the bridge worker, GC, animation frames, timers, paint); and the host SDK's
 * `ts:call.handle`/`ts:call.handled` marks, which the build makes only while
 * this sets `__tradescriptPhaseMarks` on the page. The bench's own GC comes
 * from a perf_hooks observer. Tracing costs time itself: the traced p50/p99
 * are printed beside the plain ones.
 *
 * Prints, for the median calls (p45–p55) and the slowest 1 %: each hop's mean
 * and, for the slow calls, what their largest hop waited for (lib/callHops.mjs
 * `hopCause`), and what the page's main thread ran (tasks over 1 ms by kind,
 * per second). Writes the raw data to bench/results/tail-<timestamp>.json.
 */
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PerformanceObserver, performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { browserTimeline, callPoints, hopCause, HOPS, taskKind } from './lib/callHops.mjs';
import { runRoundTrips, settle } from './lib/measure.mjs';
import { quantile, trialStats } from './lib/stats.mjs';
import { openTerminal, readCall, serverBin } from './lib/tradescript.mjs';
import { importHarness } from './lib/typescript.mjs';

const flags = process.argv.slice(2);
const calls = Number(flags.find((a) => !a.startsWith('--')) ?? 1000);
const rounds = Number(flags.find((a) => a.startsWith('--rounds='))?.slice('--rounds='.length) ?? 3);
const variants = [
  { label: 'live terminal (headline)', query: '' },
  ...(flags.includes('--live-only') ? [] : [{ label: 'market paused (?market=paused, info)', query: 'market=paused' }]),
];
const WRAPPER = fileURLToPath(new URL('lib/hopTimes.mjs', import.meta.url));
const CATEGORIES = ['toplevel', 'devtools.timeline', 'blink.user_timing'];
const nowUs = () => Number(process.hrtime.bigint() / 1000n);
const perfToUs = nowUs() - performance.now() * 1000;
/** The bench process's own GCs (µs spans), while noting. */
let clientGc = [];
new PerformanceObserver((list) => {
  for (const e of list.getEntries()) clientGc.push({ ts: perfToUs + e.startTime * 1000, dur: e.duration * 1000 });
}).observe({ entryTypes: ['gc'] });

const h = await importHarness();
const browser = await h.launchBrowser();
const results = variants.map(({ label }) => ({ label, plain: [], points: [], raw: [] }));
try {
  // Round by round, each terminal in turn (the order flips every round), so a shared machine's load drifts on both.
  for (let round = 0; round < rounds; round++) {
    const order = variants.map((_, i) => i);
    if (round % 2) order.reverse();
    for (const i of order) await measure(variants[i], results[i]);
  }
} finally {
  await h.closeAll();
}
const out = join(
  fileURLToPath(new URL('results', import.meta.url)),
  `tail-${new Date().toISOString().replace(/[:.]/g, '-')}.json`,
);
mkdirSync(join(out, '..'), { recursive: true });
/** The points without their trace context (shared per round, and large). */
const bare = (p) => Object.fromEntries(Object.entries(p).filter(([key]) => key !== 'ctx'));
writeFileSync(out, JSON.stringify(results.map((r) => ({ ...r, points: r.points.map(bare) }))));
for (const r of results) report(r);
console.log(`\nraw data: ${out}`);
process.exit(0);

/** One round of one terminal (a fresh server and tab): warm-up, a plain run, a traced run cut into hops. */
async function measure({ query }, into) {
  const file = join(tmpdir(), `tradescript-hops-${process.pid}.json`);
  const terminal = await openTerminal(h, browser, 'stdio', { bin: WRAPPER, prefixArgs: [file, serverBin(h)], query });
  try {
    const call = readCall(terminal);
    await runRoundTrips(call, 2000, 1);
    await settle();
    const run = await runRoundTrips(call, calls, 1);
    into.plain.push(trialStats(run.latencies, run.wallMs));
    const traced = await tracedRound(terminal, call, file);
    into.raw.push(traced.summary);
    into.points.push(...traced.points);
  } finally {
    await terminal.close();
    rmSync(file, { force: true });
  }
}

/** One traced round: the calls' points and the context their causes are read from. */
async function tracedRound(terminal, call, file) {
  await settle();
  await browser.startTracing(terminal.page, { categories: CATEGORIES });
  await terminal.page.evaluate(() => Object.assign(globalThis, { __tradescriptPhaseMarks: true }));
  process.kill(terminal.serverPid, 'SIGUSR2');
  await new Promise((resolve) => setTimeout(resolve, 100)); // the signal is handled asynchronously
  clientGc = [];
  const spans = [];
  const cpu0 = machineCpu();
  const t0 = nowUs();
  for (let i = 0; i < calls; i++) {
    const c0 = nowUs();
    await call();
    spans.push({ c0, c5: nowUs() });
  }
  const t1 = nowUs();
  const cpu1 = machineCpu();
  process.kill(terminal.serverPid, 'SIGUSR2');
  await terminal.waitForStderr('hopTimes: written');
  await terminal.page.evaluate(() => Object.assign(globalThis, { __tradescriptPhaseMarks: false }));
  const events = JSON.parse((await browser.stopTracing()).toString('utf8')).traceEvents;
  const server = JSON.parse(readFileSync(file, 'utf8'));
  const timeline = browserTimeline(events);
  const gcOf = (inside) =>
    inside.filter((e) => e.name === 'MinorGC' || e.name === 'MajorGC').map((e) => ({ ts: e.ts, dur: e.dur ?? 0 }));
  const ctx = {
    browser: timeline,
    serverGc: server.filter((e) => e.kind.startsWith('gc:')).map((e) => ({ ts: e.at, dur: e.dur })),
    clientGc: clientGc.slice(),
    pageGc: gcOf(timeline.mainInside),
    workerGc: gcOf(timeline.workerInside),
  };
  const matched = callPoints(spans, server, timeline);
  const points = matched.filter((p) => p !== null).map((p) => ({ ...p, ms: (p.c5 - p.c0) / 1000, ctx }));
  const mainLong = timeline.mainTasks
    .filter((t) => t.ts >= t0 && t.ts <= t1 && t.dur >= 1000)
    .map((t) => ({ kind: taskKind(t, timeline.mainInside), ms: t.dur / 1000 }));
  const summary = {
    wallMs: (t1 - t0) / 1000,
    machineBusy: (cpu1.busy - cpu0.busy) / (cpu1.total - cpu0.total),
    unmatched: matched.filter((p) => p === null).length,
    serverGc: ctx.serverGc.length,
    clientGc: ctx.clientGc.length,
    pageGc: ctx.pageGc.length,
    workerGc: ctx.workerGc.length,
    mainLong,
  };
  return { points, summary };
}

/** Prints one terminal's tables. */
function report({ label, plain, points, raw }) {
  const med = (xs) =>
    quantile(
      [...xs].sort((a, b) => a - b),
      0.5,
    );
  const sorted = [...points].sort((a, b) => a.ms - b.ms);
  const lat = sorted.map((p) => p.ms);
  const p99 = quantile(lat, 0.99);
  const slow = sorted.filter((p) => p.ms >= p99);
  const middle = sorted.slice(Math.floor(sorted.length * 0.45), Math.ceil(sorted.length * 0.55));
  const wall = raw.reduce((s, r) => s + r.wallMs, 0) / 1000;
  console.log(`\n== ${label}: ${calls} calls × ${rounds} rounds`);
  console.log(
    `plain  p50 ${med(plain.map((t) => t.p50)).toFixed(3)} ms, p99 ${med(plain.map((t) => t.p99)).toFixed(3)} ms ` +
      `(per round: ${plain.map((t) => `${t.p50.toFixed(2)}/${t.p99.toFixed(2)}`).join(' ')})`,
  );
  console.log(
    `traced p50 ${quantile(lat, 0.5).toFixed(3)} ms, p99 ${p99.toFixed(3)} ms over ${lat.length} matched calls ` +
      `(${raw.reduce((s, r) => s + r.unmatched, 0)} unmatched); GCs: server ${sum(raw, 'serverGc')}, ` +
      `bench ${sum(raw, 'clientGc')}, page ${sum(raw, 'pageGc')}, worker ${sum(raw, 'workerGc')}; ` +
      `all cores busy while traced: ${raw.map((r) => `${(100 * r.machineBusy).toFixed(0)} %`).join(' ')}`,
  );
  console.log(`hop (ms)                                  median calls   slowest 1 %   excess`);
  HOPS.forEach(([name, a, b], i) => {
    const mean = (ps) => ps.reduce((s, p) => s + (p[b] - p[a]) / 1000, 0) / ps.length;
    const [m, s] = [mean(middle), mean(slow)];
    console.log(
      `  ${name.padEnd(38)} ${m.toFixed(3).padStart(10)} ${s.toFixed(3).padStart(13)} ${(s - m).toFixed(3).padStart(8)}  [${i}]`,
    );
  });
  const causes = new Map();
  for (const p of slow) {
    const excess = HOPS.map(([, a, b], i) => [i, (p[b] - p[a]) / 1000 - hopMedian(middle, a, b)]);
    const [worst] = excess.sort((x, y) => y[1] - x[1])[0];
    const cause = `${HOPS[worst][0]} ← ${hopCause(worst, p, p.ctx)}`;
    causes.set(cause, (causes.get(cause) ?? 0) + 1);
  }
  console.log(
    `slowest 1 % (${slow.length} calls ≥ ${p99.toFixed(2)} ms): largest hop over its median ← what it waited for`,
  );
  for (const [cause, n] of [...causes].sort((x, y) => y[1] - x[1])) {
    console.log(`  ${((100 * n) / slow.length).toFixed(0).padStart(3)} %  ${cause}`);
  }
  const groups = new Map();
  for (const [cause, n] of causes) {
    const why = cause.split(' ← ')[1];
    const group = why.startsWith('page main thread busy')
      ? 'behind a page main-thread task of the demo'
      : why.endsWith(' GC')
        ? 'a GC'
        : why;
    groups.set(group, (groups.get(group) ?? 0) + n);
  }
  const shares = [...groups].sort((x, y) => y[1] - x[1]);
  console.log(`  in all: ${shares.map(([g, n]) => `${((100 * n) / slow.length).toFixed(0)} % ${g}`).join('; ')}`);
  const kinds = new Map();
  for (const t of raw.flatMap((r) => r.mainLong)) {
    const k = kinds.get(t.kind) ?? { n: 0, ms: 0, max: 0 };
    kinds.set(t.kind, { n: k.n + 1, ms: k.ms + t.ms, max: Math.max(k.max, t.ms) });
  }
  console.log(`page main-thread tasks ≥ 1 ms while traced (${wall.toFixed(1)} s): per second, busy ms/s, longest`);
  for (const [kind, k] of [...kinds].sort((x, y) => y[1].ms - x[1].ms)) {
    console.log(
      `  ${(k.n / wall).toFixed(1).padStart(5)}/s ${(k.ms / wall).toFixed(1).padStart(6)} ms/s ${k.max.toFixed(1).padStart(6)} ms  ${kind}`,
    );
  }
}

/** All cores' jiffies so far, busy and in all (/proc/stat: busy is all but idle and iowait). */
function machineCpu() {
  const [, ...fields] = readFileSync('/proc/stat', 'utf8').split('\n')[0].trim().split(/\s+/);
  const n = fields.map(Number);
  const total = n.reduce((a, b) => a + b, 0);
  return { total, busy: total - n[3] - n[4] };
}

function hopMedian(points, a, b) {
  return quantile(
    points.map((p) => (p[b] - p[a]) / 1000).sort((x, y) => x - y),
    0.5,
  );
}

function sum(raw, key) {
  return raw.reduce((s, r) => s + r[key], 0);
}
