#!/usr/bin/env node
/**
 * What the harness's DevTools client costs a call. The bench drives Chromium
 * with Playwright, which enables the Network domain on the page and its
 * worker, so every relay frame is also reported to the bench process as a
 * DevTools event. This pairs two terminals of the same build: one through a
 * Playwright page (as the bench does) and one in a Chromium started with no
 * DevTools client at all (it opens the pairing link itself), and takes turns
 * round by round (`bench/abCalls.mjs`'s method).
 *
 *   node --expose-gc bench/plainBrowserCalls.mjs [rounds=8]
 *   TRADESCRIPT_BENCH_BIN=<bin.js> …   another build
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runRoundTrips, settle } from './lib/measure.mjs';
import { trialStats } from './lib/stats.mjs';
import { openTerminal, readCall, REQUEST_OPTIONS } from './lib/tradescript.mjs';
import { importHarness } from './lib/typescript.mjs';

const rounds = Number(process.argv[2] ?? 8);
const bin = process.env.TRADESCRIPT_BENCH_BIN;
const h = await importHarness();
const browser = await h.launchBrowser();
const profile = mkdtempSync(join(tmpdir(), 'tradescript-bench-plain-'));
/** @type {import('node:child_process').ChildProcess | null} */
let plainBrowser = null;
/** @type {Record<string, number[]>} */
const p50s = { playwright: [], plain: [] };
/** @type {Record<string, number[]>} */
const p99s = { playwright: [], plain: [] };
try {
  const driven = await openTerminal(h, browser, 'stdio', bin ? { bin } : {});
  const server = await h.connectStdioClient(['demo', '--stdio'], bin ? { bin } : {});
  plainBrowser = spawn(
    h.chromiumPath(),
    ['--headless', ...h.CHROMIUM_ARGS, `--user-data-dir=${profile}`, server.ready.pairUrl],
    { stdio: 'ignore' },
  );
  const sessionId = await firstSession(server.client);
  await server.client.listTools();
  const ops = {
    playwright: readCall(driven),
    plain: readCall({
      sessionId,
      callTool: (name, args) => server.client.callTool({ name, arguments: args }, REQUEST_OPTIONS),
    }),
  };
  for (const op of Object.values(ops)) await runRoundTrips(op, 2000, 1);
  for (let round = 0; round < rounds; round++) {
    for (const name of round % 2 ? ['plain', 'playwright'] : ['playwright', 'plain']) {
      await settle();
      const run = await runRoundTrips(ops[name], 1000, 1);
      const stats = trialStats(run.latencies, run.wallMs);
      p50s[name].push(stats.p50);
      p99s[name].push(stats.p99);
    }
  }
  await server.close();
  await driven.close();
} finally {
  plainBrowser?.kill();
  await h.closeAll();
  rmSync(profile, { recursive: true, force: true });
}
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
for (const name of ['playwright', 'plain']) {
  console.log(
    `${name.padEnd(10)} p50 per round ${p50s[name].map((x) => x.toFixed(2)).join(' ')}; ` +
      `median p50 ${median(p50s[name]).toFixed(3)} ms, median p99 ${median(p99s[name]).toFixed(2)} ms`,
  );
}
process.exit(0);

/** The first session the server lists (the plain Chromium's tab, once it paired). */
async function firstSession(client) {
  for (let i = 0; i < 150; i++) {
    const read = await client.readResource({ uri: 'tradescript://sessions' });
    const id = JSON.parse(read.contents[0].text).sessions?.[0]?.sessionId;
    if (id) return id;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  throw new Error('the Chromium without DevTools did not pair within 30 s');
}
