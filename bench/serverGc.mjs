/**
 * The server's garbage per stdio `tradescript_call`, two builds taking turns:
 * each build's `serve --stdio` driven by an MCP SDK client, its relay answered
 * by a Node WebSocket tab that answers at once (no browser, as in
 * serverCpuAB.mjs), with bench/lib/gcProbe.mjs loaded into the server. Over
 * each round's calls it reads V8's GC profiler: bytes allocated per call (the
 * heap's growth between GCs), scavenges and mark-compacts per 1,000 calls,
 * their pauses, and what survives a scavenge (bytes left in the young
 * generation plus bytes promoted to the old one).
 *
 *   TRADESCRIPT_BENCH_BASELINE_BIN=<other build's bin.js> \
 *     flock /tmp/bench.lock node bench/serverGc.mjs [calls=5000] [rounds=4] [--callers=8] [--sample] [--survivors] [--retained]
 *
 * `--sample` also runs the sampling heap profiler in the server over the last
 * round and prints each build's top allocation sites (garbage included) by
 * bytes per call, ours (dist/node/server, dist/node/protocol) marked `*`;
 * `--survivors` the sites of what survived a scavenge (what a scavenge's pause
 * grows with); `--retained` the sites of what is still alive after a full GC
 * at the end of the round (what the calls left behind). With
 * `TRADESCRIPT_GC_SAVE=<dir>` each profile is kept there as
 * `<build>-<mode>.heapprofile` (DevTools' Memory tab opens it).
 */
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { answeringTab, openStdio } from './lib/serverAlone.mjs';
import { median } from './lib/stats.mjs';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const PROBE = pathToFileURL(join(ROOT, 'bench/lib/gcProbe.mjs')).href;
const WARMUP = 2_000;
const [calls = 5_000, rounds = 4] = process.argv
  .slice(2)
  .filter((a) => !a.startsWith('--'))
  .map(Number);
const callers = Number(process.argv.find((a) => a.startsWith('--callers='))?.slice(10) ?? 1);
const modes = ['sample', 'survivors', 'retained'].filter((m) => process.argv.includes(`--${m}`));
const baseline = process.env.TRADESCRIPT_BENCH_BASELINE_BIN;
const builds = [
  ...(baseline ? [['baseline', baseline]] : []),
  ['this', process.env.TRADESCRIPT_BENCH_BIN ?? join(ROOT, 'dist/node/server/bin.js')],
];

/** A server of `bin` over stdio with the probe loaded, a client, and a tab answering every call at once. */
async function open(bin) {
  const out = mkdtempSync(join(tmpdir(), 'ts-server-gc-'));
  const env = {
    ...process.env,
    TRADESCRIPT_MCP_HOME: out,
    NODE_OPTIONS: `${process.env.NODE_OPTIONS ?? ''} --import=${PROBE}`,
    TRADESCRIPT_GC_PROBE_OUT: out,
  };
  const { pid, client, relayUrl } = await openStdio(bin, env, 'server-gc');
  const tab = await answeringTab({
    bin,
    env: { ...process.env, TRADESCRIPT_MCP_HOME: out },
    relayUrl,
    title: 'server-gc',
  });
  const { callArgs } = tab;
  const call = async () => {
    const result = await client.callTool({ name: 'tradescript_call', arguments: callArgs });
    if (result.isError) throw new Error(`tradescript_call failed: ${JSON.stringify(result).slice(0, 300)}`);
  };
  const run = async (n) => {
    let left = n;
    const lane = async () => {
      while (left-- > 0) await call();
    };
    await Promise.all(Array.from({ length: callers }, lane));
  };
  /** Runs `n` calls inside a probe window and returns the probe's file. */
  const measured = async (n, withSample) => {
    const file = join(out, `gc-${pid}.json`);
    rmSync(file, { force: true });
    for (const mode of ['sample', 'survivors', 'retained'])
      if (withSample === mode) writeFileSync(join(out, mode), '');
      else rmSync(join(out, mode), { force: true });
    process.kill(pid, 'SIGUSR2');
    await new Promise((resolve) => setTimeout(resolve, 50));
    await run(n);
    process.kill(pid, 'SIGUSR2');
    while (!existsSync(file)) await new Promise((resolve) => setTimeout(resolve, 20));
    await new Promise((resolve) => setTimeout(resolve, 50));
    const heap = join(out, `heap-${pid}.heapprofile`);
    return {
      gc: JSON.parse(readFileSync(file, 'utf8')),
      heap: existsSync(heap) ? JSON.parse(readFileSync(heap, 'utf8')) : null,
    };
  };
  const close = async () => (tab.close(), await client.close(), rmSync(out, { recursive: true, force: true }));
  return { run, measured, close };
}

/** Allocation, GC counts and survivors of one window of `n` calls. */
function summarize({ start, end, gcs }, n) {
  const used = (stats) => Object.fromEntries(stats.heapSpaceStatistics.map((s) => [s.spaceName, s.spaceUsedSize]));
  const total = (byspace) => Object.values(byspace).reduce((a, b) => a + b, 0);
  let allocated = 0;
  let last = start;
  const scavenges = [];
  const majors = [];
  for (const gc of gcs.statistics) {
    const before = used(gc.beforeGC);
    const after = used(gc.afterGC);
    allocated += Math.max(0, total(before) - total(last));
    last = after;
    const pauseMs = gc.cost / 1000;
    if (gc.gcType === 'Scavenge') {
      const promoted = total(after) - after.new_space - (total(before) - before.new_space);
      scavenges.push({ pauseMs, survived: after.new_space, promoted });
    } else majors.push({ type: gc.gcType, pauseMs });
  }
  allocated += Math.max(0, total(end) - total(last));
  return { allocatedPerCall: allocated / n, scavenges, majors };
}

/** Self bytes per call by allocation site (function, file:line) of a sampling heap profile. */
function topSites(profile, n, count = 15) {
  const sites = new Map();
  const walk = (node) => {
    const { functionName, url, lineNumber } = node.callFrame;
    const key = `${functionName || '(anonymous)'} ${url.replace(/^.*\/(dist|node_modules)\//, '$1/')}:${lineNumber + 1}`;
    const self = node.selfSize ?? 0;
    if (self) sites.set(key, (sites.get(key) ?? 0) + self);
    for (const child of node.children) walk(child);
  };
  walk(profile.head);
  return [...sites]
    .sort((a, b) => b[1] - a[1])
    .slice(0, count)
    .map(
      ([key, bytes]) =>
        `${/dist\/node\/(server|protocol)\//.test(key) ? '*' : ' '} ${(bytes / n).toFixed(0).padStart(6)} B/call  ${key}`,
    );
}

const servers = [];
for (const [label, bin] of builds) servers.push({ label, ...(await open(bin)) });
try {
  for (const server of servers) await server.run(WARMUP);
  const results = Object.fromEntries(builds.map(([label]) => [label, []]));
  for (let round = 0; round < rounds; round++) {
    for (const server of round % 2 === 0 ? servers : [...servers].reverse()) {
      const { gc } = await server.measured(calls, null);
      const s = summarize(gc, calls);
      results[server.label].push(s);
      console.log(
        `round ${round} ${server.label}: ${(s.allocatedPerCall / 1024).toFixed(1)} KB/call, ` +
          `${((s.scavenges.length * 1000) / calls).toFixed(2)} scavenges/1k calls (median ${median(s.scavenges.map((x) => x.pauseMs)).toFixed(2)} ms), ` +
          `${((s.majors.length * 1000) / calls).toFixed(2)} major/1k`,
      );
    }
  }
  for (const [label] of builds) {
    const all = results[label];
    const sc = all.flatMap((s) => s.scavenges);
    const mj = all.flatMap((s) => s.majors);
    const n = calls * all.length;
    const pauses = sc.map((x) => x.pauseMs).sort((a, b) => a - b);
    console.log(
      `${label}: allocated ${(median(all.map((s) => s.allocatedPerCall)) / 1024).toFixed(1)} KB/call; ` +
        `${((sc.length * 1000) / n).toFixed(2)} scavenges/1k calls, pause median ${median(pauses).toFixed(2)} ms, ` +
        `p90 ${(pauses[Math.floor(pauses.length * 0.9)] ?? 0).toFixed(2)} ms, max ${(pauses.at(-1) ?? 0).toFixed(2)} ms; ` +
        `survivors median ${(median(sc.map((x) => x.survived)) / 1024).toFixed(0)} KB young + ${(median(sc.map((x) => x.promoted)) / 1024).toFixed(0)} KB promoted; ` +
        `${((mj.length * 1000) / n).toFixed(2)} mark-compacts/1k calls (${mj.map((x) => x.pauseMs.toFixed(1)).join(', ')} ms); ` +
        `GC pause ${((sc.reduce((a, x) => a + x.pauseMs, 0) + mj.reduce((a, x) => a + x.pauseMs, 0)) / (n / 1000)).toFixed(1)} ms/1k calls`,
    );
  }
  for (const mode of modes)
    for (const server of servers) {
      const { heap } = await server.measured(calls, mode);
      if (process.env.TRADESCRIPT_GC_SAVE)
        writeFileSync(
          join(process.env.TRADESCRIPT_GC_SAVE, `${server.label}-${mode}.heapprofile`),
          JSON.stringify(heap),
        );
      const what = {
        sample: 'allocation sites',
        survivors: 'sites of what survived a scavenge',
        retained: 'sites of what is still alive after a full GC',
      }[mode];
      console.log(`${server.label}: top ${what} over ${calls} calls (* ours)`);
      for (const line of topSites(heap, calls)) console.log(line);
    }
} finally {
  for (const server of servers) await server.close();
}
process.exit(0);
