#!/usr/bin/env node
/**
 * CPU time per call of table 1's trivial read, by process: the server and
 * Chromium (every process of the bench browser), against the MCP SDK alone
 * over the same transport, read from /proc (utime + stime) around the
 * measured calls, with no profiler attached. A call's latency for one caller
 * is mostly these CPU times in sequence, so this says where it goes. What
 * Chromium burns with no call (the demo's live market) over the same time is
 * measured right after and taken out of the per-call figure; it is printed as
 * ms of CPU per second. Anchors: the SDK alone (server), the ws floor and the
 * peer relay (stdio), measured the same way in the same browser. The client
 * is this process (the MCP SDK's client, which checks each result against the
 * tool's outputSchema as real clients do); its CPU per call is shown too,
 * since on two cores it competes with the server and Chromium.
 *
 *   npm run build && node bench/cpuPerCall.mjs [calls=3000] [--http | --http2026]
 *   TRADESCRIPT_BENCH_BASELINE_BIN=<other build's bin.js> …   # that build too, taking turns
 */
import { readFileSync } from 'node:fs';
import { runRoundTrips } from './lib/measure.mjs';
import { cpuMs } from './lib/procCpu.mjs';
import { trialStats } from './lib/stats.mjs';
import { baselineBin, openTerminal, readCall } from './lib/tradescript.mjs';
import { openSdkHttp, openSdkStdio } from './anchors/sdkAlone.mjs';
import { openPeer } from './anchors/peer.mjs';
import { openWsFloor } from './anchors/wsFloor.mjs';
import { importHarness } from './lib/typescript.mjs';

const flags = process.argv.slice(2);
const calls = Number(flags.find((a) => !a.startsWith('--')) ?? 3000);
const modern = flags.includes('--http2026');
const transport = modern || flags.includes('--http') ? 'http' : 'stdio';
const era = modern ? 'modern' : undefined;
const MARK = `--tradescript-cpu-per-call=${process.pid}`;

/** The live processes of this script's browser (found by its own argument) and their descendants. */
function browserPids(h) {
  const roots = h.pidsWithArgument(MARK);
  return [...new Set(roots.flatMap((pid) => h.processTree(pid)))];
}

/** Pids whose command line contains `text`. */
function pidsMatching(text) {
  const found = [];
  for (const pid of h.processTree(1)) {
    try {
      if (readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes(text)) found.push(pid);
    } catch {
      // ended
    }
  }
  return found;
}

/** CPU of the server and the browser per call over `calls` calls, with p50. */
async function measure(h, op, serverPids) {
  await runRoundTrips(op, 2_000, 1);
  const browser = browserPids(h);
  const s0 = cpuMs(serverPids);
  const b0 = cpuMs(browser);
  const c0 = process.cpuUsage();
  const run = await runRoundTrips(op, calls, 1);
  const c = process.cpuUsage(c0);
  const s1 = cpuMs(serverPids);
  const b1 = cpuMs(browser);
  const { p50 } = trialStats(run.latencies, run.wallMs);
  // What the browser burns with no call (the demo's live market) over the same time, taken out.
  const i0 = cpuMs(browser);
  await new Promise((resolve) => setTimeout(resolve, run.wallMs));
  const idle = cpuMs(browser) - i0;
  return {
    p50,
    serverMs: (s1 - s0) / calls,
    clientMs: (c.user + c.system) / 1000 / calls,
    browserMs: (b1 - b0 - idle) / calls,
    idleMs: idle / calls,
    wallMs: run.wallMs / calls,
  };
}

const h = await importHarness();
const browser = await h.launchBrowser({ args: [MARK] });
const rows = [];
try {
  const sdk = transport === 'http' ? await openSdkHttp(h, modern) : await openSdkStdio();
  rows.push(['MCP SDK alone', await measure(h, sdk.call, pidsMatching('sdkServer.mjs'))]);
  await sdk.close();
  const floor = await openWsFloor(h, browser);
  rows.push(['ws floor (browser only)', await measure(h, () => floor.echo(), [])]);
  await floor.close();
  if (transport === 'stdio') {
    const peer = await openPeer(h, browser);
    rows.push(['peer relay', await measure(h, () => peer.call(), pidsMatching('webmcp-local-relay'))]);
    await peer.close();
  }
  const builds = [['ours', undefined]];
  if (baselineBin()) builds.unshift(['before', baselineBin()]);
  for (const round of [1, 2]) {
    for (const [label, bin] of builds) {
      const terminal = await openTerminal(h, browser, transport, bin ? { bin, era } : { era });
      try {
        rows.push([
          `${label} (round ${round})`,
          await measure(h, readCall(terminal), h.processTree(terminal.serverPid)),
        ]);
      } finally {
        await terminal.close();
      }
    }
  }
} finally {
  await h.closeAll();
}
console.log(
  `${modern ? 'http 2026-07-28 (stateless)' : transport}, ${calls} calls each after 2,000 warm-up, CPU from /proc (10 ms ticks)`,
);
console.log(
  '                          p50 ms   wall/call   server CPU/call   Chromium CPU/call   client CPU/call   Chromium idle ms/s',
);
for (const [label, r] of rows) {
  console.log(
    `${label.padEnd(24)} ${r.p50.toFixed(3).padStart(7)} ${r.wallMs.toFixed(3).padStart(11)} ${r.serverMs.toFixed(3).padStart(17)} ${r.browserMs.toFixed(3).padStart(19)} ${r.clientMs.toFixed(3).padStart(17)} ${((r.idleMs / r.wallMs) * 1000).toFixed(0).padStart(20)}`,
  );
}
