/**
 * Where a `tradescript_call` spends its latency beyond the SPEC §12 anchors:
 * one transport, in one browser, every variant taking its turn each round
 * (the order rotating by one every round), so load and drift fall on all alike.
 *
 *   flock /tmp/bench.lock node --expose-gc bench/callFloorAB.mjs stdio|http|http2026 [rounds=6]
 *     [--calls=1000] [--callers=8] [--only=floor,sdk,composite,quiet,paused,live] [--warmup=2000]
 *
 * The variants, all in this order unless `--only` picks some:
 * - `floor`: the ws floor (bench/anchors/wsFloor.mjs), Node ↔ page echo;
 * - `sdk`: the MCP SDK alone over the transport (bench/anchors/sdkAlone.mjs), one trivial tool;
 * - `composite` (a): the bare composite, the same SDK server whose `tools/call`
 *   forwards each call over a WebSocket to the floor's echo page and answers
 *   when the echo returns (`bench/fixtures/sdkServer.mjs --echo`): the least
 *   any bridge built of these two hops can take here;
 * - `quiet` (b): ours (the real CLI, `demo --allowed-origin <fixture>`), paired
 *   to a quiet host page, the vendor fixture terminal of table 6
 *   (`e2e/fixtures/cluster/page/`: the host SDK, the plain
 *   `<tradescript-bridge>`, whose activity feed is in sight as on a vendor's
 *   page and renders new rows at most every 100 ms, once a second in a burst;
 *   one read, `desk.echo`), calling that read;
 * - `paused` (b′): ours paired to the demo terminal with its market stopped
 *   (`?market=paused`: the page of `live`, its views drawn once, no ticks, the
 *   dock closed so no feed rows render), calling `chart.getVisibleRange`;
 * - `live` (c): ours paired to the live demo terminal, calling
 *   `chart.getVisibleRange` on its main chart (table 1's call).
 * `http2026` speaks 2026-07-28 stateless HTTP to the SDK (pinned client) and
 * to ours (each call passing back the attachment handle of the one before).
 *
 * Each variant gets 2,000 warm-up calls; each turn runs `--calls` calls with one
 * caller (p50, p99, and the CPU per call of the variant's server process tree
 * and of the whole browser, from /proc, the browser's net of what it burns per
 * ms with no calls, measured over 3 s before the rounds with every page open),
 * then as many with `--callers` callers (calls/s). The live demo's tab stays
 * open throughout, so its idle burn falls on every variant; `--only` without
 * `live` measures the others in a browser with no live page.
 *
 * It prints each variant's medians over rounds, then the paired differences
 * per round: composite − (floor + SDK) (what two hops cost beyond their sum),
 * quiet − composite (our server, relay and page beyond the bare composite),
 * live − paused (what the live market costs a call), quiet − paused (the
 * vendor page's element and feed against the demo's quiet element), with in how many rounds the
 * later variant was slower, and the SPEC §12 limit 1.3 × (floor + SDK) p50.
 */
import { openSdkHttp, openSdkStdio } from './anchors/sdkAlone.mjs';
import { openWsFloor } from './anchors/wsFloor.mjs';
import { cpuMs } from './lib/procCpu.mjs';
import { runRoundTrips, settle } from './lib/measure.mjs';
import { median, trialStats } from './lib/stats.mjs';
import { openTerminal, pairVendorPage, readCall } from './lib/tradescript.mjs';
import { turnOrder } from './lib/turns.mjs';
import { importHarness } from './lib/typescript.mjs';

const flags = process.argv.slice(2);
const positional = flags.filter((a) => !a.startsWith('--'));
const flag = (name, fallback) => flags.find((a) => a.startsWith(`--${name}=`))?.slice(name.length + 3) ?? fallback;
const mode = positional[0] ?? 'stdio';
if (!['stdio', 'http', 'http2026'].includes(mode)) {
  console.error('bench/callFloorAB.mjs: stdio | http | http2026 [rounds] [--calls=N] [--callers=N] [--only=…]');
  process.exit(2);
}
const rounds = Number(positional[1] ?? 6);
const calls = Number(flag('calls', 1000));
const callers = Number(flag('callers', 8));
const ALL = ['floor', 'sdk', 'composite', 'quiet', 'paused', 'live'];
const chosen = flag('only', ALL.join(',')).split(',');
for (const name of chosen) if (!ALL.includes(name)) throw new Error(`bench/callFloorAB.mjs: unknown variant ${name}`);
const names = ALL.filter((name) => chosen.includes(name));
/** SPEC §12 / bench convention: under ~2,000 warm-up calls latencies read about 2× high. */
const WARMUP = Number(flag('warmup', 2_000));
const MARK = `--tradescript-call-floor-ab=${process.pid}`;

/** The quiet host page's read (e2e/fixtures/cluster/page/). */
const QUIET_CALL = { target: { scope: 'session' }, controlId: 'desk.echo', args: ['bench'] };
/** @type {Promise<{ url: string, origin: string, close(): Promise<void> }> | null} */
let quietPage = null;

const h = await importHarness();
const browser = await h.launchBrowser({ args: [MARK] });
const browserPids = () => [...new Set(h.pidsWithArgument(MARK).flatMap((pid) => h.processTree(pid)))];

/** @type {Record<string, { p50: number[], p99: number[], perSec: number[], server: number[], browser: number[] }>} */
const per = Object.fromEntries(names.map((n) => [n, { p50: [], p99: [], perSec: [], server: [], browser: [] }]));
/** @type {Record<string, Awaited<ReturnType<typeof openVariant>>>} */
const opened = {};
try {
  for (const name of names) {
    opened[name] = await openVariant(h, browser, name, mode);
    const warm = await runRoundTrips(opened[name].op, WARMUP, 1);
    if (warm.failures > 0) throw new Error(`${name}: ${warm.failures} warm-up calls failed: ${warm.firstError}`);
  }
  const idle = await idleRate(3_000);
  console.log(`${mode}: browser idle ${idle.toFixed(3)} ms CPU per ms with every page open (${names.join(', ')})`);
  for (let round = 0; round < rounds; round++) {
    for (const name of turnOrder(names, round)) {
      const v = opened[name];
      const server = v.serverPid ? h.processTree(v.serverPid) : [];
      await settle();
      const [s0, b0] = [cpuMs(server), cpuMs(browserPids())];
      const one = await runRoundTrips(v.op, calls, 1);
      const [s1, b1] = [cpuMs(server), cpuMs(browserPids())];
      if (one.failures > 0) throw new Error(`${name}: ${one.failures} calls failed: ${one.firstError}`);
      const stats = trialStats(one.latencies, one.wallMs);
      per[name].p50.push(stats.p50);
      per[name].p99.push(stats.p99);
      per[name].server.push(v.serverPid ? (s1 - s0) / calls : NaN);
      per[name].browser.push((b1 - b0 - idle * one.wallMs) / calls);
      if (callers > 0) {
        await settle();
        const many = await runRoundTrips(v.op, calls, callers);
        if (many.failures > 0) throw new Error(`${name}: ${many.failures} calls failed: ${many.firstError}`);
        per[name].perSec.push(trialStats(many.latencies, many.wallMs).perSec);
      }
    }
  }
} finally {
  for (const v of Object.values(opened)) await v.close().catch(() => {});
  await h.closeAll();
}

const f = (x, d = 3) => (Number.isFinite(x) ? x.toFixed(d) : '—');
const load = (await import('node:os')).loadavg().map((x) => x.toFixed(1));
console.log(
  `${mode}: ${rounds} rounds of ${calls} calls (1 caller) and ${calls} (${callers} callers); load ${load.join(' ')}`,
);
console.log('variant     p50 ms  p99 ms  calls/s 8  server CPU ms/call  browser CPU ms/call (net of idle)');
for (const name of names) {
  const m = per[name];
  console.log(
    `${name.padEnd(10)} ${f(median(m.p50)).padStart(7)} ${f(median(m.p99), 2).padStart(7)} ${f(median(m.perSec), 0).padStart(10)}` +
      ` ${f(median(m.server)).padStart(19)} ${f(median(m.browser)).padStart(20)}`,
  );
}
for (const name of names)
  console.log(`  ${name.padEnd(9)} p50 per round ${per[name].p50.map((x) => x.toFixed(2)).join(' ')}`);

/** Per round: `later` − `earlier` (each a list of variants whose p50s add up), median and rounds the later was slower. */
function paired(label, later, earlier) {
  if (![...later, ...earlier].every((n) => per[n])) return;
  const sum = (list, r) => list.reduce((s, n) => s + per[n].p50[r], 0);
  const diffs = Array.from({ length: rounds }, (_, r) => sum(later, r) - sum(earlier, r));
  const ratios = Array.from({ length: rounds }, (_, r) => sum(later, r) / sum(earlier, r));
  const slower = diffs.filter((d) => d > 0).length;
  console.log(
    `${label.padEnd(34)} p50 +${f(median(diffs))} ms (paired median; ratio ${f(median(ratios))}), later slower in ${slower} of ${rounds} rounds`,
  );
}
console.log(`${mode}: paired, per round`);
paired('composite − (floor + SDK)', ['composite'], ['floor', 'sdk']);
paired('quiet − composite', ['quiet'], ['composite']);
paired('paused − composite', ['paused'], ['composite']);
paired('live − quiet', ['live'], ['quiet']);
paired('live − paused', ['live'], ['paused']);
paired('quiet − paused', ['quiet'], ['paused']);
paired('live − composite', ['live'], ['composite']);
paired('live − (floor + SDK)', ['live'], ['floor', 'sdk']);
if (per.floor && per.sdk) {
  const limits = Array.from({ length: rounds }, (_, r) => 1.3 * (per.floor.p50[r] + per.sdk.p50[r]));
  console.log(`${mode}: SPEC §12 limit 1.3 × (floor + SDK) p50: ${f(median(limits))} ms (median over rounds)`);
}
process.exit(0);

/**
 * Opens one variant: its round trip `op`, its server's pid (none for the
 * floor, whose server is this process) and `close`.
 * @returns {Promise<{ op: () => Promise<boolean | void>, serverPid?: number, close(): Promise<void> }>}
 */
async function openVariant(h, browser, name, mode) {
  const modern = mode === 'http2026';
  const transport = mode === 'stdio' ? 'stdio' : 'http';
  const era = modern ? { era: /** @type {const} */ ('modern') } : {};
  if (name === 'floor') {
    const floor = await openWsFloor(h, browser);
    return { op: floor.echo, close: floor.close };
  }
  if (name === 'sdk' || name === 'composite') {
    const echo = name === 'composite';
    const sdk = transport === 'stdio' ? await openSdkStdio({ echo }) : await openSdkHttp(h, modern, { echo });
    let tab = null;
    if (echo) {
      tab = await h.newPage(browser);
      await tab.page.goto(sdk.echoUrl);
    }
    return {
      op: sdk.call,
      serverPid: sdk.pid,
      close: async () => {
        await sdk.close();
        await tab?.close();
      },
    };
  }
  if (name === 'live' || name === 'paused') {
    const terminal = await openTerminal(h, browser, transport, {
      ...era,
      ...(name === 'paused' ? { query: 'market=paused' } : {}),
    });
    return { op: readCall(terminal), serverPid: terminal.serverPid, close: terminal.close };
  }
  quietPage ??= (async () => {
    const { serveClusterPage } = await import('../e2e/fixtures/cluster/servePage.ts');
    const served = await serveClusterPage();
    h.track(() => served.close());
    return served;
  })();
  const page = await quietPage;
  const terminal = await openTerminal(h, browser, transport, {
    ...era,
    args: ['--allowed-origin', page.origin],
    pair: (tab, ready) =>
      pairVendorPage(tab, {
        pageUrl: page.url,
        relayUrl: ready.relayUrl,
        code: new URL(ready.pairUrl).hash.replace(/^#pair=/, ''),
      }),
  });
  return { op: readCall(terminal, QUIET_CALL), serverPid: terminal.serverPid, close: terminal.close };
}

/** The whole browser's CPU ms per ms of wall with no calls (every open page's own work). */
async function idleRate(ms) {
  const c0 = cpuMs(browserPids());
  await new Promise((resolve) => setTimeout(resolve, ms));
  return (cpuMs(browserPids()) - c0) / ms;
}
