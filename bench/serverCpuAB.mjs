/**
 * The server alone, two builds side by side: each build's `serve --stdio`
 * (or with `--http` / `--http2026`, `serve --http 127.0.0.1:0`, Streamable
 * HTTP on 2025-11-25 sessions or 2026-07-28 stateless requests) driven by an
 * MCP SDK client, its relay answered by a Node WebSocket "tab"
 * that answers every call at once (no browser), and the server's CPU per
 * `tradescript_call` read from `/proc`. Taking turns, the order alternating
 * each round. Without Chromium's share of the two cores (its idle market,
 * compositors, Playwright's reporting), a change of a few hundredths of a
 * millisecond on the server shows; `cpuPerCall.mjs` cannot separate that from
 * its run-to-run spread.
 *
 *   TRADESCRIPT_BENCH_BASELINE_BIN=<other build's bin.js> \
 *     flock /tmp/bench.lock node bench/serverCpuAB.mjs [calls=1500] [rounds=24] [--http | --http2026]
 *
 * Prints each round, each build's median, and the paired ratio this/baseline
 * (median, and in how many rounds this build was lower). Run the baseline
 * against itself (`TRADESCRIPT_BENCH_BIN` = the same bin) for the noise.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { cpuMs } from './lib/procCpu.mjs';
import { answeringTab, openStdio, ORIGIN, readyLine } from './lib/serverAlone.mjs';
import { median } from './lib/stats.mjs';
import { importHarness } from './lib/typescript.mjs';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const WARMUP = 2_000;
const flags = process.argv.slice(2);
const [calls = 1_500, rounds = 24] = flags.filter((a) => !a.startsWith('--')).map(Number);
const modern = flags.includes('--http2026');
const http = modern || flags.includes('--http');
const baseline = process.env.TRADESCRIPT_BENCH_BASELINE_BIN;
if (!baseline) {
  console.error('serverCpuAB: set TRADESCRIPT_BENCH_BASELINE_BIN to the other build (dist/node/server/bin.js)');
  process.exit(2);
}
const builds = [
  ['baseline', baseline],
  ['this', process.env.TRADESCRIPT_BENCH_BIN ?? join(ROOT, 'dist/node/server/bin.js')],
];

/**
 * `bin` serving MCP over Streamable HTTP on a loopback port, and an SDK
 * client of it: 2025-11-25 (a session), or 2026-07-28 pinned (stateless).
 */
async function openHttp(bin, env) {
  const args = [bin, 'serve', '--http', '127.0.0.1:0', '--port', '0', '--allowed-origin', ORIGIN];
  const child = spawn(process.execPath, args, { env, stdio: ['ignore', 'ignore', 'pipe'] });
  const { mcpUrl, relayUrl } = await readyLine(child.stderr);
  // The fetch cpuPerCall's clients use: each request its own AbortSignal (see e2e/harness/perRequestFetch.ts).
  const { perRequestSignalFetch } = await importHarness();
  const transport = new StreamableHTTPClientTransport(new URL(mcpUrl), { fetch: perRequestSignalFetch() });
  const options = modern ? { versionNegotiation: { mode: { pin: '2026-07-28' } } } : {};
  const client = new Client({ name: 'server-cpu-ab', version: '0' }, options);
  await client.connect(transport);
  const stop = async () => {
    await client.close().catch(() => {});
    child.kill();
  };
  return { pid: child.pid, client, relayUrl, stop };
}

/** A server of `bin`, a client, and a tab answering every call at once. */
async function open(bin) {
  const env = { ...process.env, TRADESCRIPT_MCP_HOME: mkdtempSync(join(tmpdir(), 'ts-server-ab-')) };
  const { pid, client, relayUrl, stop } = await (http ? openHttp(bin, env) : openStdio(bin, env, 'server-cpu-ab'));
  // Real clients list tools first (the SDK client keeps each tool's outputSchema to check results against).
  await client.listTools();
  const tab = await answeringTab({ bin, env, relayUrl, title: 'server-cpu-ab' });
  const { callArgs } = tab;
  // A stateless (2026-07-28 HTTP) client passes back the attachment handle of the result before, as a model does.
  let handle;
  const call = async () => {
    const args = handle === undefined ? callArgs : { ...callArgs, attachment: handle };
    const result = await client.callTool({ name: 'tradescript_call', arguments: args });
    if (result.isError) throw new Error(`tradescript_call failed: ${JSON.stringify(result).slice(0, 300)}`);
    if (modern) handle = result.structuredContent?.meta?.attachment ?? handle;
  };
  const close = async () => (tab.close(), await stop());
  return { pid, call, close };
}

const servers = [];
console.log(
  `${http ? (modern ? 'http 2026-07-28 (stateless)' : 'http 2025-11-25 (sessions)') : 'stdio'}, ${calls} calls × ${rounds} rounds`,
);
for (const [label, bin] of builds) servers.push({ label, ...(await open(bin)) });
try {
  for (const server of servers) for (let i = 0; i < WARMUP; i++) await server.call();
  const cpu = { baseline: [], this: [] };
  // This process: the SDK client and the tab (the same work for both builds, bar what each server sends).
  const clientCpu = { baseline: [], this: [] };
  for (let round = 0; round < rounds; round++) {
    for (const server of round % 2 === 0 ? servers : [...servers].reverse()) {
      const before = cpuMs([server.pid]);
      const start = performance.now();
      const client0 = process.cpuUsage();
      for (let i = 0; i < calls; i++) await server.call();
      const clientUsage = process.cpuUsage(client0);
      const perCall = (cpuMs([server.pid]) - before) / calls;
      const clientPerCall = (clientUsage.user + clientUsage.system) / 1000 / calls;
      cpu[server.label].push(perCall);
      clientCpu[server.label].push(clientPerCall);
      const wall = (performance.now() - start) / calls;
      console.log(
        `round ${round} ${server.label}: server CPU ${perCall.toFixed(4)} ms/call, client CPU ${clientPerCall.toFixed(4)}, wall ${wall.toFixed(3)} ms/call`,
      );
    }
  }
  const ratios = cpu.this.map((x, i) => x / cpu.baseline[i]);
  for (const label of ['baseline', 'this'])
    console.log(
      `${label}: median server CPU ${median(cpu[label]).toFixed(4)} ms/call, client CPU ${median(clientCpu[label]).toFixed(4)}`,
    );
  const lower = ratios.filter((r) => r < 1).length;
  console.log(`this/baseline: paired median ${median(ratios).toFixed(3)}, lower in ${lower} of ${rounds} rounds`);
  const clientRatios = clientCpu.this.map((x, i) => x / clientCpu.baseline[i]);
  const clientLower = clientRatios.filter((r) => r < 1).length;
  console.log(
    `client CPU this/baseline: paired median ${median(clientRatios).toFixed(3)}, lower in ${clientLower} of ${rounds} rounds`,
  );
} finally {
  for (const server of servers) await server.close();
}
process.exit(0);
