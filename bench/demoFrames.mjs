#!/usr/bin/env node
/**
 * What the idle live demo terminal costs its page's main thread (issue 15: a
 * call waits behind the demo's own frames, since the relay socket lives on the
 * main thread): no calls, the market ticking, a Chromium trace of
 * `seconds` per terminal. With `TRADESCRIPT_BENCH_BASELINE_BIN` (another
 * build's bin, which serves that build's demo) the two builds take turns,
 * round by round (the order flips every round), one tab at a time.
 *
 *   flock /tmp/bench.lock node bench/demoFrames.mjs [seconds=10] [--rounds=3] [--detail] [--cpu] [--bin=label:path …]
 *
 * Prints per build and round: main-thread busy ms per second (top-level
 * tasks), tasks over 1 ms per second, the p99 and longest task; then the
 * medians over rounds. `--detail` adds, for tasks over 1 ms, time by kind
 * (lib/callHops.mjs `taskKind`) and by inner event (script by source,
 * style, layout, paint …, self time).
 */
import { join } from 'node:path';
import { taskKind } from './lib/callHops.mjs';
import { sourceMapped } from './lib/cpuProfile.mjs';
import { median, quantile } from './lib/stats.mjs';
import { baselineBin, openTerminal } from './lib/tradescript.mjs';
import { importHarness } from './lib/typescript.mjs';

const flags = process.argv.slice(2);
const seconds = Number(flags.find((a) => !a.startsWith('--')) ?? 10);
const rounds = Number(flags.find((a) => a.startsWith('--rounds='))?.slice('--rounds='.length) ?? 3);
const detail = flags.includes('--detail');
/** `--cpu`: this build's page CPU profile over the traced seconds, by source function. */
const cpu = flags.includes('--cpu');
const TASK = 'ThreadControllerImpl::RunTask';
/** The phases of a frame whose CPU time (self, ms/s) the summary shows. */
const PHASES = ['UpdateLayoutTree', 'Layout', 'PrePaint', 'Paint', 'Layerize', 'Commit'];
const CATEGORIES = ['toplevel', 'devtools.timeline', 'blink.user_timing', 'v8'];
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
const builds = [
  ...(baselineBin() ? [{ label: 'before', bin: baselineBin() }] : []),
  { label: 'this build', bin: undefined },
  // `--bin=label:path`: more builds (e.g. a variant of this one copied aside) in the same turns.
  ...flags
    .filter((a) => a.startsWith('--bin='))
    .map((a) => a.slice('--bin='.length).split(':'))
    .map(([label, bin]) => ({ label, bin })),
];

const h = await importHarness();
const where = cpu ? await sourceMapped(join(h.repoRoot, 'dist/demo/assets')) : null;
const browser = await h.launchBrowser();
const results = builds.map(() => []);
try {
  for (let round = 0; round < rounds; round++) {
    const order = builds.map((_, i) => i);
    if (round % 2) order.reverse();
    for (const i of order) {
      const r = await measure(builds[i]);
      results[i].push(r);
      console.log(`round ${round} ${builds[i].label.padEnd(12)} ${line(r)}`);
      console.log(`        ${[...r.phases].map(([k, v]) => `${k} ${v.toFixed(2)}`).join(' · ')}`);
      if (detail) printDetail(r);
    }
  }
} finally {
  await h.closeAll();
}
console.log('\nmedians over rounds');
const phaseNames = ['script', 'chart script', ...PHASES];
for (const [i, b] of builds.entries()) {
  const cells = phaseNames.map((p) => `${p} ${median(results[i].map((r) => r.phases.get(p) ?? 0)).toFixed(2)}`);
  console.log(`  ${b.label.padEnd(12)} self CPU ms/s: ${cells.join(' · ')}`);
}
const kindNames = [...new Set(results.flatMap((rs) => rs.flatMap((r) => [...r.kinds.keys()])))];
for (const kind of kindNames) {
  console.log(`  tasks over 1 ms of kind "${kind}": per build, per second, CPU ms per task (median, p90, max)`);
  for (const [i, b] of builds.entries()) {
    const cpus = results[i].flatMap((r) => r.kinds.get(kind)?.cpu ?? []).sort((x, y) => x - y);
    const perS = median(results[i].map((r) => (r.kinds.get(kind)?.n ?? 0) / r.spanS));
    console.log(
      `    ${b.label.padEnd(12)} ${perS.toFixed(2)}/s · ${quantile(cpus, 0.5).toFixed(2)} · ${quantile(cpus, 0.9).toFixed(2)} · ${(cpus[cpus.length - 1] ?? NaN).toFixed(2)}`,
    );
  }
}
for (const [i, b] of builds.entries()) {
  const med = (key) => median(results[i].map((r) => r[key]));
  console.log(
    `  ${b.label.padEnd(12)} cpu ${med('cpuPerS').toFixed(1)} ms/s · cpu p99 task ${med('cpuP99').toFixed(2)} ms · cpu longest ${med('cpuLongest').toFixed(2)} ms · frames ${med('framesPerS').toFixed(2)}/s | wall: busy ${med('busyPerS').toFixed(1)} ms/s · tasks>1ms ${med('over1PerS').toFixed(2)}/s · p99 task ${med('p99').toFixed(2)} ms · longest ${med('longest').toFixed(2)} ms · busy in tasks>1ms ${med('over1BusyPerS').toFixed(1)} ms/s`,
  );
}
process.exit(0);

/** Self and total ms per second by source function. */
function printProfile(profile) {
  const nodes = new Map(profile.nodes.map((n) => [n.id, n]));
  const parent = new Map();
  for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  const keyOf = new Map();
  const key = (id) => {
    if (!keyOf.has(id)) keyOf.set(id, where(nodes.get(id).callFrame).key);
    return keyOf.get(id);
  };
  const self = new Map();
  const total = new Map();
  for (let i = 0; i < profile.samples.length; i++) {
    const dt = (profile.timeDeltas[i + 1] ?? 0) / 1000;
    const id = profile.samples[i];
    const k = key(id);
    if (k.startsWith('(idle)') || k.startsWith('(program)')) continue;
    self.set(k, (self.get(k) ?? 0) + dt);
    const seen = new Set();
    for (let at = id; at !== undefined; at = parent.get(at)) {
      const kk = key(at);
      if (seen.has(kk)) continue;
      seen.add(kk);
      total.set(kk, (total.get(kk) ?? 0) + dt);
    }
  }
  const print = (title, m) => {
    console.log(`   ${title}`);
    for (const [k, v] of [...m].sort((a, b) => b[1] - a[1]).slice(0, 70))
      console.log(`     ${(v / seconds).toFixed(2).padStart(7)}  ${k}`);
  };
  print('CPU self ms/s by function:', self);
  print('CPU total ms/s by function:', total);
}

function line(r) {
  return `cpu ${r.cpuPerS.toFixed(1)} ms/s · cpu p99 task ${r.cpuP99.toFixed(2)} ms · cpu longest ${r.cpuLongest.toFixed(2)} ms · frames ${r.framesPerS.toFixed(2)}/s | wall: busy ${r.busyPerS.toFixed(1)} ms/s · tasks>1ms ${r.over1PerS.toFixed(2)}/s · p99 task ${r.p99.toFixed(2)} ms · longest ${r.longest.toFixed(2)} ms · busy in tasks>1ms ${r.over1BusyPerS.toFixed(1)} ms/s`;
}

async function measure(build) {
  const terminal = await openTerminal(h, browser, 'stdio', { bin: build.bin });
  try {
    await sleep(3000);
    await terminal.page.evaluate(() => performance.mark('bench:frames'));
    const profiler = cpu && !build.bin ? await terminal.page.context().newCDPSession(terminal.page) : null;
    if (profiler) {
      await profiler.send('Profiler.enable');
      await profiler.send('Profiler.setSamplingInterval', { interval: 200 });
      await profiler.send('Profiler.start');
    }
    await browser.startTracing(terminal.page, { categories: CATEGORIES });
    await sleep(seconds * 1000);
    const events = JSON.parse((await browser.stopTracing()).toString('utf8')).traceEvents;
    if (profiler) printProfile((await profiler.send('Profiler.stop')).profile);
    return analyse(events);
  } finally {
    await terminal.close();
  }
}

/** The demo's renderer main thread: the one whose trace holds the tab's tasks with the most script. */
function analyse(events) {
  const threads = events.filter((e) => e.ph === 'M' && e.name === 'thread_name' && e.args?.name === 'CrRendererMain');
  let best = null;
  for (const t of threads) {
    const n = events.filter((e) => e.pid === t.pid && e.tid === t.tid && e.name === 'FireAnimationFrame').length;
    if (!best || n > best.n) best = { pid: t.pid, tid: t.tid, n };
  }
  const mine = events.filter((e) => e.pid === best.pid && e.tid === best.tid);
  const tasks = mine.filter((e) => e.ph === 'X' && e.name === TASK).sort((a, b) => a.ts - b.ts);
  const inside = mine.filter((e) => e.name !== TASK && e.ph === 'X').sort((a, b) => a.ts - b.ts);
  const spanS = (tasks[tasks.length - 1].ts - tasks[0].ts) / 1e6 || seconds;
  const ms = tasks.map((t) => t.dur / 1000).sort((a, b) => a - b);
  const over1 = tasks.filter((t) => t.dur > 1000);
  const cpuMs = tasks.map((t) => (t.tdur ?? t.dur) / 1000).sort((a, b) => a - b);
  const r = {
    cpuPerS: cpuMs.reduce((a, b) => a + b, 0) / spanS,
    cpuP99: quantile(cpuMs, 0.99),
    cpuLongest: Math.max(...cpuMs),
    framesPerS: mine.filter((e) => e.name === 'PrePaint' && e.ph === 'X').length / spanS,
    busyPerS: ms.reduce((a, b) => a + b, 0) / spanS,
    over1PerS: over1.length / spanS,
    over1BusyPerS: over1.reduce((a, t) => a + t.dur / 1000, 0) / spanS,
    p99: quantile(ms, 0.99),
    longest: Math.max(...ms),
    kinds: new Map(),
    inner: new Map(),
    top: [],
  };
  for (const t of over1) {
    const within = inside.filter((e) => e.ts >= t.ts && e.ts + (e.dur ?? 0) <= t.ts + t.dur);
    const kind = taskKind(t, within);
    const k = r.kinds.get(kind) ?? { n: 0, ms: 0, max: 0, cpu: [] };
    k.cpu.push((t.tdur ?? t.dur) / 1000);
    r.kinds.set(kind, { n: k.n + 1, ms: k.ms + t.dur / 1000, max: Math.max(k.max, t.dur / 1000), cpu: k.cpu });
    for (const [name, self] of selfTimes(within)) r.inner.set(name, (r.inner.get(name) ?? 0) + self);
    r.top.push({ ms: t.dur / 1000, kind, parts: [...selfTimes(within)].sort((a, b) => b[1] - a[1]).slice(0, 5) });
  }
  r.top.sort((a, b) => b.ms - a.ms);
  r.phases = cpuByPhase(inside, spanS);
  r.spanS = spanS;
  return r;
}

/** Self CPU ms/s over the whole trace of: the demo's script, the chart library's, and each frame phase. */
function cpuByPhase(inside, spanS) {
  const out = new Map();
  const stack = [];
  const key = (e) => {
    if (e.name === 'FunctionCall')
      return /lightweight-charts/.test(e.args?.data?.url ?? '') ? 'chart script' : 'script';
    return PHASES.includes(e.name) ? e.name : null;
  };
  const add = (k, v) => out.set(k, (out.get(k) ?? 0) + v / 1000 / spanS);
  for (const e of inside) {
    while (stack.length && stack[stack.length - 1].end <= e.ts) stack.pop();
    const k = key(e);
    if (k === null) continue;
    const cpuUs = e.tdur ?? e.dur ?? 0;
    const parent = stack[stack.length - 1];
    if (parent) add(parent.key, -cpuUs);
    add(k, cpuUs);
    stack.push({ key: k, end: e.ts + (e.dur ?? 0) });
  }
  return out;
}

/** Self time (ms) of each nested event name within one task; script named by its source file. */
function selfTimes(within) {
  const out = new Map();
  const stack = [];
  const name = (e) => {
    if (e.name === 'FunctionCall' || e.name === 'EvaluateScript') {
      const url = e.args?.data?.url ?? '';
      const file = url.split('/').pop() || '?';
      return `script ${file} ${e.args?.data?.functionName ?? ''}`.trim();
    }
    return e.name;
  };
  const add = (k, v) => out.set(k, (out.get(k) ?? 0) + v);
  for (const e of within) {
    while (stack.length && stack[stack.length - 1].end <= e.ts) stack.pop();
    const parent = stack[stack.length - 1];
    if (parent) add(parent.key, -(e.dur ?? 0) / 1000);
    const entry = { key: name(e), end: e.ts + (e.dur ?? 0) };
    add(entry.key, (e.dur ?? 0) / 1000);
    stack.push(entry);
  }
  return out;
}

function printDetail(r) {
  console.log('   tasks over 1 ms by kind (n, ms/s, max ms):');
  for (const [kind, k] of [...r.kinds].sort((a, b) => b[1].ms - a[1].ms))
    console.log(
      `     ${String(k.n).padStart(4)} ${(k.ms / r.spanS).toFixed(2).padStart(7)} ${k.max.toFixed(2).padStart(7)}  ${kind}`,
    );
  console.log('   inside tasks over 1 ms, self ms/s by event:');
  for (const [name, v] of [...r.inner].sort((a, b) => b[1] - a[1]).slice(0, 25))
    console.log(`     ${(v / r.spanS).toFixed(3).padStart(8)}  ${name}`);
  console.log('   longest tasks:');
  for (const t of r.top.slice(0, 8))
    console.log(
      `     ${t.ms.toFixed(2).padStart(7)} ms  ${t.kind}: ${t.parts.map(([n, v]) => `${n} ${v.toFixed(2)}`).join(', ')}`,
    );
}
