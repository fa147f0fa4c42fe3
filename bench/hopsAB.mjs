/**
 * Issue 15 item 1, "question the hops": the same `tradescript_call` on another
 * build (`main`, e.g. one with the relay socket in the bridge worker, before
 * the split) and on this checkout (`this`: since the split, the socket on the
 * page's main thread), both paired to one browser at once, taking turns round
 * by round (the order rotates), so drift and load fall on both alike. (The
 * prototype's `?hops=` variants that decided the split are in git history:
 * bench/experiments/hopsInPage.patch before the merge of s6w.) Per round
 * and variant: 1,000 calls from one caller (p50, p99,
 * and CPU per call of the server, the page's renderer and the whole browser,
 * from /proc), then 1,000 from 8 callers (calls/s). Then traced rounds: the
 * page's renderer, thread by thread (its main thread and its bridge worker),
 * busy ms per call net of what it does with no calls over as long (the live
 * market), and the longest main-thread task, one caller and 8.
 *
 *   flock /tmp/bench.lock node --expose-gc bench/hopsAB.mjs [rounds=10] [traced=4] \
 *     [--variants=main,this] [--http]
 *
 * `main` is TRADESCRIPT_BENCH_BASELINE_BIN (required: another build's bin.js);
 * `this` is this checkout.
 */
import { readFileSync } from 'node:fs';
import { runRoundTrips, settle } from './lib/measure.mjs';
import { median, trialStats } from './lib/stats.mjs';
import { openTerminal, readCall } from './lib/tradescript.mjs';
import { cpuMs } from './lib/procCpu.mjs';
import { traceTasks, threadTasks } from './lib/threadBusy.mjs';
import { importHarness } from './lib/typescript.mjs';

const flags = process.argv.slice(2);
const positional = flags.filter((a) => !a.startsWith('--'));
const rounds = Number(positional[0] ?? 10);
const tracedRounds = Number(positional[1] ?? 4);
const transport = flags.includes('--http') ? 'http' : 'stdio';
const chosen = (flags.find((a) => a.startsWith('--variants='))?.slice(11) ?? 'main,this').split(',');
const CALLS = 1000;
const CALLERS = 8;
const MARK = `--tradescript-hops-ab=${process.pid}`;
const baseline = process.env.TRADESCRIPT_BENCH_BASELINE_BIN;
if (!baseline) {
  console.error(
    'hopsAB: set TRADESCRIPT_BENCH_BASELINE_BIN to the bin.js of the build to compare against (e.g. main built elsewhere)',
  );
  process.exit(2);
}
/** @type {Record<string, { bin?: string, query?: string }>} */
const KNOWN = { main: { bin: baseline }, this: {} };
const variants = chosen.map((name) => ({ name, opts: KNOWN[name] ?? fail(`unknown variant ${name}`) }));

function fail(message) {
  throw new Error(`bench/hopsAB.mjs: ${message}`);
}

/** Variants in this round's order: rotated by one each round. */
const turn = (round) => variants.map((_, i) => variants[(i + round) % variants.length]);

/** Top-level tasks as this script counts them (Chromium's own `RunTask` too). */
const TASKS = new Set(['ThreadControllerImpl::RunTask', 'ThreadPool_RunTask', 'RunTask']);

/** Busy ms by thread name of process `pid`, and its main thread's longest task. */
function pidThreads(events, pid) {
  const { busy, longest } = threadTasks(events, { byPid: false, pid, taskNames: TASKS });
  return { busy, longest: longest.get('CrRendererMain') ?? 0 };
}

/** The pid of a variant's page renderer: the renderer whose CPU rises most, and clearly, while the page spins. */
async function findRenderer(h, terminal) {
  const renderers = browserPids(h).filter((pid) => readCmdline(pid).includes('--type=renderer'));
  const before = renderers.map((pid) => cpuMs([pid]));
  await terminal.page.evaluate(() => {
    const end = performance.now() + 600;
    while (performance.now() < end);
  });
  const rise = renderers.map((pid, i) => cpuMs([pid]) - before[i]);
  const [best, second = 0] = [...rise].sort((a, b) => b - a);
  if (best < 100 || best < 2 * second) fail(`no renderer clearly spun for the page (${rise.join(', ')} ms)`);
  return renderers[rise.indexOf(best)];
}

function readCmdline(pid) {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8');
  } catch {
    return '';
  }
}

const browserPids = (h) => [...new Set(h.pidsWithArgument(MARK).flatMap((pid) => h.processTree(pid)))];

/** One variant's turn in a round: one caller with CPU, then 8 callers. */
async function measureTurn(h, v) {
  const pids = { server: h.processTree(v.terminal.serverPid), renderer: [v.renderer], browser: browserPids(h) };
  await settle();
  const c0 = Object.fromEntries(Object.entries(pids).map(([k, p]) => [k, cpuMs(p)]));
  const one = await runRoundTrips(readCall(v.terminal), CALLS, 1);
  const c1 = Object.fromEntries(Object.entries(pids).map(([k, p]) => [k, cpuMs(p)]));
  await settle();
  const many = await runRoundTrips(readCall(v.terminal), CALLS, CALLERS);
  if (one.failures + many.failures > 0) fail(`${v.name}: ${one.failures + many.failures} failed calls`);
  const s1 = trialStats(one.latencies, one.wallMs);
  const s8 = trialStats(many.latencies, many.wallMs);
  return {
    p50: s1.p50,
    p99: s1.p99,
    perSec8: s8.perSec,
    p99of8: s8.p99,
    wallMs: one.wallMs,
    cpu: Object.fromEntries(Object.keys(pids).map((k) => [k, c1[k] - c0[k]])),
  };
}

/** CPU ms per ms of wall with no calls, per process group (the live markets of every page). */
async function idleCpuRates(h, v, ms = 3000) {
  const pids = { server: h.processTree(v.terminal.serverPid), renderer: [v.renderer], browser: browserPids(h) };
  const c0 = Object.fromEntries(Object.entries(pids).map(([k, p]) => [k, cpuMs(p)]));
  await new Promise((resolve) => setTimeout(resolve, ms));
  return Object.fromEntries(Object.entries(pids).map(([k, p]) => [k, (cpuMs(p) - c0[k]) / ms]));
}

/** One traced turn: the renderer's threads' busy ms and its main thread's longest task, for one caller and 8. */
async function traceTurn(browser, v) {
  const out = {};
  for (const callers of [1, CALLERS]) {
    await settle();
    const { events, wallMs } = await traceTasks(browser, v.terminal.page, () =>
      runRoundTrips(readCall(v.terminal), CALLS, callers),
    );
    out[callers] = { ...pidThreads(events, v.renderer), wallMs };
  }
  return out;
}

const h = await importHarness();
const browser = await h.launchBrowser({ args: [MARK] });
const fmt = (x, d = 3) => (Number.isFinite(x) ? x.toFixed(d) : 'n/a');
try {
  for (const v of variants) {
    v.terminal = await openTerminal(h, browser, transport, v.opts);
    await runRoundTrips(readCall(v.terminal), 2000, 1);
    await runRoundTrips(readCall(v.terminal), 500, CALLERS);
    v.renderer = await findRenderer(h, v.terminal);
    v.rounds = [];
    v.traces = [];
  }
  console.log(`variants ${variants.map((v) => `${v.name} (renderer pid ${v.renderer})`).join(', ')}; ${transport}`);
  for (let round = 0; round < rounds; round++) {
    for (const v of turn(round)) v.rounds.push(await measureTurn(h, v));
    const line = variants.map((v) => {
      const r = v.rounds.at(-1);
      return `${v.name} p50 ${fmt(r.p50)} p99 ${fmt(r.p99)} ${fmt(r.perSec8, 0)}/s`;
    });
    console.log(`round ${round + 1}: ${line.join(' | ')}`);
  }
  for (const v of variants) v.idle = await idleCpuRates(h, v);
  for (let round = 0; round < tracedRounds; round++) {
    for (const v of turn(round)) v.traces.push(await traceTurn(browser, v));
  }
  for (const v of variants) {
    const { events, wallMs } = await traceTasks(
      browser,
      v.terminal.page,
      () => new Promise((r) => setTimeout(r, 3000)),
    );
    const quiet = pidThreads(events, v.renderer);
    v.background = { rates: new Map([...quiet.busy].map(([t, ms]) => [t, ms / wallMs])), longest: quiet.longest };
  }
  for (const v of variants) await v.terminal.close();
} finally {
  await h.closeAll();
}
report();
process.exit(0);

function report() {
  const base = variants[0];
  console.log(`\nmedians over ${rounds} rounds of ${CALLS} calls (one caller; ${CALLERS} callers for calls/s)`);
  for (const v of variants) {
    const m = (k) => median(v.rounds.map((r) => r[k]));
    const wins = (k, better) => v.rounds.filter((r, i) => better(r[k], base.rounds[i][k])).length;
    const vs =
      v === base
        ? ''
        : ` | faster p50 in ${wins('p50', (a, b) => a < b)}/${rounds}, p99 ${wins('p99', (a, b) => a < b)}/${rounds}, calls/s ${wins('perSec8', (a, b) => a > b)}/${rounds}`;
    console.log(
      `${v.name.padEnd(7)} p50 ${fmt(m('p50'))} ms  p99 ${fmt(m('p99'))} ms  ${CALLERS}-caller ${fmt(m('perSec8'), 0)} calls/s (p99 ${fmt(m('p99of8'))} ms)${vs}`,
    );
  }
  console.log(
    '\nCPU ms per call, one caller, net of idle (all rounds summed; 10 ms ticks): server, page renderer, whole browser',
  );
  for (const v of variants) {
    const wall = v.rounds.reduce((s, r) => s + r.wallMs, 0);
    const net = (k) => (v.rounds.reduce((s, r) => s + r.cpu[k], 0) - v.idle[k] * wall) / (CALLS * v.rounds.length);
    console.log(
      `${v.name.padEnd(7)} server ${fmt(net('server'))}  renderer ${fmt(net('renderer'))}  browser ${fmt(net('browser'))}`,
    );
  }
  console.log(`\nthe page renderer's threads, busy ms per call net of the live market; longest main-thread task (ms)`);
  for (const callers of [1, CALLERS]) {
    for (const v of variants) {
      const tr = v.traces.map((t) => t[callers]);
      const threads = new Set(tr.flatMap((t) => [...t.busy.keys()]));
      const parts = [...threads]
        .map((thread) => {
          const ms = tr.reduce(
            (s, t) => s + (t.busy.get(thread) ?? 0) - (v.background.rates.get(thread) ?? 0) * t.wallMs,
            0,
          );
          return [thread, ms / (CALLS * tr.length)];
        })
        .filter(([, perCall]) => Math.abs(perCall) >= 0.002)
        .sort((a, b) => b[1] - a[1])
        .map(([thread, perCall]) => `${thread} ${fmt(perCall)}`);
      const longest = tr.map((t) => fmt(t.longest, 1)).join(' ');
      console.log(
        `${callers} caller${callers > 1 ? 's' : ' '} ${v.name.padEnd(7)} longest ${longest} (idle ${fmt(v.background.longest, 1)}) | ${parts.join(', ')}`,
      );
    }
  }
}
