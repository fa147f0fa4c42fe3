/**
 * Two builds' `tradescript_call` p50, alternating: both paired to one browser
 * at once, 2,000 warm-up calls each, then rounds of 1,000 calls taking turns
 * (the order flips every round), so drift and load fall on both alike; each
 * turn then runs 1,000 more calls from 8 concurrent callers, for the rate and
 * that run's p50/p99 (pass `--callers=N` for another count, 0 for none). The
 * bench's call table measures a baseline's rows and then ours, one after the
 * other; on a shared machine that order can outweigh a small difference.
 *
 *   TRADESCRIPT_BENCH_BASELINE_BIN=/path/to/before/dist/node/server/bin.js \
 *     node --expose-gc bench/abCalls.mjs stdio|http|http2026 [rounds=8] [--busy] [--callers=8]
 *
 * `http2026` speaks 2026-07-28 over stateless HTTP (each call passes back the attachment handle).
 *
 * `--busy` then traces Chromium for a further round of 1,000 calls per build
 * (taking turns the same way) and prints each thread's busy time per call,
 * threads of one name added up across processes (both terminals' renderers
 * run their live market throughout, so that background falls on both alike).
 */
import { runRoundTrips, settle } from './lib/measure.mjs';
import { trialStats } from './lib/stats.mjs';
import { openTerminal, readCall } from './lib/tradescript.mjs';
import { threadBusy } from './lib/threadBusy.mjs';
import { importHarness } from './lib/typescript.mjs';

const flags = process.argv.slice(2);
const positional = flags.filter((a) => !a.startsWith('--'));
const modern = positional[0] === 'http2026';
const transport = modern || positional[0] === 'http' ? 'http' : 'stdio';
const rounds = Number(positional[1] ?? 8);
const busyRounds = flags.includes('--busy') ? 4 : 0;
const callers = Number(flags.find((a) => a.startsWith('--callers='))?.slice('--callers='.length) ?? 8);
const baseline = process.env.TRADESCRIPT_BENCH_BASELINE_BIN;
if (!baseline) {
  console.error('bench/abCalls.mjs: set TRADESCRIPT_BENCH_BASELINE_BIN to the other build’s dist/node/server/bin.js');
  process.exit(2);
}
const era = modern ? { era: 'modern' } : {};
const builds = { before: { bin: baseline, ...era }, after: { ...era } };
const h = await importHarness();
const browser = await h.launchBrowser();
/** @type {Record<string, number[]>} */
const p50s = { before: [], after: [] };
/** @type {Record<string, number[]>} one caller's p99 per round */
const p99s = { before: [], after: [] };
/** @type {Record<string, ReturnType<typeof trialStats>[]>} the concurrent callers' run per round */
const crowd = { before: [], after: [] };
/** @type {Record<string, Map<string, number>>} thread → busy ms over all traced calls */
const busy = { before: new Map(), after: new Map() };
const tracedMs = { before: 0, after: 0 };
/** Busy ms per ms of wall time with no calls (both terminals' live markets), by thread. */
let background = new Map();
try {
  /** @type {Record<string, any>} */
  const terminals = {};
  for (const [name, opts] of Object.entries(builds)) {
    terminals[name] = await openTerminal(h, browser, transport, opts);
    await runRoundTrips(readCall(terminals[name]), 2000, 1);
  }
  for (let round = 0; round < rounds; round++) {
    for (const name of round % 2 ? ['after', 'before'] : ['before', 'after']) {
      await settle();
      const run = await runRoundTrips(readCall(terminals[name]), 1000, 1);
      const stats = trialStats(run.latencies, run.wallMs);
      p50s[name].push(stats.p50);
      p99s[name].push(stats.p99);
      if (callers > 0) {
        await settle();
        const many = await runRoundTrips(readCall(terminals[name]), 1000, callers);
        if (many.failures > 0) throw many.firstError ?? new Error(`${many.failures} calls failed`);
        crowd[name].push(trialStats(many.latencies, many.wallMs));
      }
    }
  }
  for (let round = 0; round < busyRounds; round++) {
    for (const name of round % 2 ? ['after', 'before'] : ['before', 'after']) {
      await settle();
      const { page } = terminals[name];
      const traced = await threadBusy(browser, page, () => runRoundTrips(readCall(terminals[name]), 1000, 1), {
        byPid: false,
      });
      for (const [thread, ms] of traced.busy) busy[name].set(thread, (busy[name].get(thread) ?? 0) + ms);
      tracedMs[name] += traced.wallMs;
    }
  }
  if (busyRounds > 0) {
    const quiet = await threadBusy(browser, terminals.after.page, () => new Promise((r) => setTimeout(r, 3_000)), {
      byPid: false,
    });
    background = new Map([...quiet.busy].map(([thread, ms]) => [thread, ms / quiet.wallMs]));
  }
  for (const terminal of Object.values(terminals)) await terminal.close();
} finally {
  await h.closeAll();
}
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const faster = p50s.after.filter((after, i) => after < p50s.before[i]).length;
console.log(`${transport}: p50 per round (ms) before ${p50s.before.map((x) => x.toFixed(2)).join(' ')}`);
console.log(`${transport}: p50 per round (ms) after  ${p50s.after.map((x) => x.toFixed(2)).join(' ')}`);
console.log(
  `${transport}: median p50 before ${median(p50s.before).toFixed(3)} ms, after ${median(p50s.after).toFixed(3)} ms; after faster in ${faster} of ${rounds} rounds`,
);
const row = (label, name, xs, digits = 2) =>
  console.log(`${transport}: ${label} per round ${name.padEnd(6)} ${xs.map((x) => x.toFixed(digits)).join(' ')}`);
const compare = (label, key, pick, higherBetter = false, digits = 3) => {
  const [b, a] = [pick('before'), pick('after')];
  const wins = a.filter((x, i) => (higherBetter ? x > b[i] : x < b[i])).length;
  row(label, 'before', b, digits === 0 ? 0 : 2);
  row(label, 'after', a, digits === 0 ? 0 : 2);
  console.log(
    `${transport}: median ${key} before ${median(b).toFixed(digits)}, after ${median(a).toFixed(digits)}; after better in ${wins} of ${b.length} rounds`,
  );
};
compare('p99 (ms)', 'p99 (ms)', (name) => p99s[name]);
if (callers > 0) {
  compare(
    `${callers} callers calls/s`,
    `${callers}-caller calls/s`,
    (name) => crowd[name].map((t) => t.perSec),
    true,
    0,
  );
  compare(`${callers} callers p50 (ms)`, `${callers}-caller p50 (ms)`, (name) => crowd[name].map((t) => t.p50));
  compare(`${callers} callers p99 (ms)`, `${callers}-caller p99 (ms)`, (name) => crowd[name].map((t) => t.p99));
}
if (busyRounds > 0) {
  const calls = busyRounds * 1000;
  console.log(
    `${transport}: Chromium busy per call (ms), ${calls} traced calls each, before → after;` +
      ' net: less what the thread does with no calls over as long (the live markets)',
  );
  const net = (name, thread) =>
    ((busy[name].get(thread) ?? 0) - (background.get(thread) ?? 0) * tracedMs[name]) / calls;
  const threads = [...busy.before.keys()].sort((a, b) => busy.before.get(b) - busy.before.get(a)).slice(0, 10);
  for (const thread of threads) {
    const [b, a] = [busy.before.get(thread) ?? 0, busy.after.get(thread) ?? 0].map((ms) => ms / calls);
    const nets = `net ${net('before', thread).toFixed(3).padStart(7)} → ${net('after', thread).toFixed(3).padStart(7)}`;
    console.log(`  ${b.toFixed(3).padStart(7)} → ${a.toFixed(3).padStart(7)}   ${nets}  ${thread}`);
  }
}
process.exit(0);
