#!/usr/bin/env node
/**
 * Profiles the call path of table 1 (`tradescript_call` of a trivial read).
 *
 *   npm run build && node --expose-gc bench/profileCalls.mjs [calls=1000]
 *   node --expose-gc bench/profileCalls.mjs [calls] --http       # Streamable HTTP, 2025-11-25 session
 *   node --expose-gc bench/profileCalls.mjs [calls] --http2026   # Streamable HTTP, 2026-07-28 stateless
 *
 * stdio: the server under `node --cpu-prof`, the page's main thread and the
 * bridge worker with the CDP Profiler (the same calls; since issue 15's split
 * the page owns the relay socket and the worker has no part in a call, so its
 * figure is what it does meanwhile), and each Chromium
 * thread's busy time from a trace. Writes
 * bench/results/profile-<timestamp>/{server,page,worker}.cpuprofile (open them
 * in Chrome DevTools → Performance, or speedscope) and prints, per call, the
 * page's and the worker's on-CPU time by source file and their hottest
 * functions (named through the demo build's source maps), and each thread's
 * busy time, next to what it does over as long with no calls (the demo's live
 * market keeps the compositors busy either way).
 *
 * HTTP: the MCP SDK alone (bench/fixtures/sdkServer.mjs, the table's anchor)
 * and then tradescript-mcp with a paired page, each server under the
 * in-process profiler for the measured calls only (bench/lib/profiled.mjs);
 * prints, per call, the client's phases (request sent → response headers →
 * body end), the server's on-CPU time by where the code lives and its
 * hottest functions, for both, so what is ours stands apart from the SDK's
 * own HTTP cost. Writes {sdk,server}.cpuprofile.
 */
import { mkdirSync, mkdtempSync, readdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { printProfile, sourceMapped, summarizeProfile } from './lib/cpuProfile.mjs';
import { runRoundTrips } from './lib/measure.mjs';
import { threadBusy } from './lib/threadBusy.mjs';
import { trialStats } from './lib/stats.mjs';
import { readCall, REQUEST_OPTIONS } from './lib/tradescript.mjs';
import { importHarness } from './lib/typescript.mjs';
import { attachWorker } from './lib/workerSession.mjs';

const flags = process.argv.slice(2);
const calls = Number(flags.find((a) => !a.startsWith('--')) ?? 1000);
const httpMode = flags.includes('--http2026') ? 'modern' : flags.includes('--http') ? 'legacy' : null;
const out = join(
  fileURLToPath(new URL('results', import.meta.url)),
  `profile-${new Date().toISOString().replace(/[:.]/g, '-')}`,
);
mkdirSync(out, { recursive: true });
const h = await importHarness();
if (httpMode) {
  const { profileHttp } = await import('./lib/profileHttp.mjs');
  await profileHttp(h, { calls, era: httpMode, out });
  process.exit(0);
}
const home = mkdtempSync(join(tmpdir(), 'tradescript-bench-home-'));
const browser = await h.launchBrowser();
const { page } = await h.newPage(browser);
const transport = new StdioClientTransport({
  command: process.execPath,
  args: ['--cpu-prof', `--cpu-prof-dir=${out}`, h.serverBin, 'demo', '--stdio', '--port', '0'],
  env: { ...process.env, TRADESCRIPT_MCP_HOME: home },
  stderr: 'pipe',
});
const ready = new Promise((resolve) => {
  let text = '';
  transport.stderr?.on('data', (d) => {
    text += d;
    const m = /tradescript-mcp ready (.*)/.exec(text);
    if (m) resolve(JSON.parse(m[1]));
  });
});
const client = new Client({ name: 'tradescript-bench-profile', version: '0.0.0' });
try {
  await client.connect(transport);
  const sessionId = await h.pairPage(page, (await ready).pairUrl);
  await client.listTools();
  const op = readCall({
    sessionId,
    callTool: (name, args) => client.callTool({ name, arguments: args }, REQUEST_OPTIONS),
  });
  await runRoundTrips(op, 2_000, 1);

  const plain = await runRoundTrips(op, calls, 1);
  const stats = trialStats(plain.latencies, plain.wallMs);
  console.log(`unprofiled: p50 ${stats.p50.toFixed(2)} ms, p99 ${stats.p99.toFixed(2)} ms over ${calls} calls`);

  const cdp = await page.context().newCDPSession(page);
  const worker = await attachWorker(cdp, /worker/);
  for (const session of [cdp, worker]) {
    await session.send('Profiler.enable');
  }
  await cdp.send('Profiler.start');
  await worker.send('Profiler.start');
  await runRoundTrips(op, calls, 1);
  const demoSources = await sourceMapped(join(h.repoRoot, 'dist/demo/assets'));
  for (const [name, session] of [
    ['page', cdp],
    ['worker', worker],
  ]) {
    const { profile } = await session.send('Profiler.stop');
    const file = join(out, `${name}.cpuprofile`);
    writeFileSync(file, JSON.stringify(profile));
    printProfile(
      name === 'page' ? 'page main thread (CDP profile)' : `bridge worker ${worker.url}`,
      summarizeProfile(file, calls, 30, demoSources),
    );
  }

  const traced = await threadBusy(browser, page, () => runRoundTrips(op, calls, 1));
  const idle = await threadBusy(browser, page, () => new Promise((resolve) => setTimeout(resolve, traced.wallMs)));
  console.log(
    `\nChromium threads' busy time per call while tracing (${calls} calls, ${(traced.wallMs / calls).toFixed(2)} ms each),` +
      ' and what the same thread did over as long with no calls (the live market, timers):',
  );
  console.log('    calls     idle      net  thread');
  for (const [thread, ms] of [...traced.busy].sort((a, b) => b[1] - a[1]).slice(0, 10)) {
    const still = idle.busy.get(thread) ?? 0;
    const cols = [ms, still, ms - still].map((x) => (x / calls).toFixed(3).padStart(7));
    console.log(`  ${cols.join('  ')}  ${thread}`);
  }
} finally {
  await client.close().catch(() => {}); // the server ends with its stdin and writes its profile
  await new Promise((resolve) => setTimeout(resolve, 1_500));
  await h.closeAll();
  rmSync(home, { recursive: true, force: true });
}
for (const f of readdirSync(out)) if (f.startsWith('CPU.')) renameSync(join(out, f), join(out, 'server.cpuprofile'));
console.log(`profiles: ${out}`);
