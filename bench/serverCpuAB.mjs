/**
 * The server alone, two builds side by side: each build's `serve --stdio`
 * driven by an MCP SDK client, its relay answered by a Node WebSocket "tab"
 * that answers every call at once (no browser), and the server's CPU per
 * `tradescript_call` read from `/proc`. Taking turns, the order alternating
 * each round. Without Chromium's share of the two cores (its idle market,
 * compositors, Playwright's reporting), a change of a few hundredths of a
 * millisecond on the server shows; `cpuPerCall.mjs` cannot separate that from
 * its run-to-run spread.
 *
 *   TRADESCRIPT_BENCH_BASELINE_BIN=<other build's bin.js> \
 *     flock /tmp/bench.lock node bench/serverCpuAB.mjs [calls=1500] [rounds=24]
 *
 * Prints each round, each build's median, and the paired ratio this/baseline
 * (median, and in how many rounds this build was lower). Run the baseline
 * against itself (`TRADESCRIPT_BENCH_BIN` = the same bin) for the noise.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import WebSocket from 'ws';
import { cpuMs } from './lib/procCpu.mjs';
import { median } from './lib/stats.mjs';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const ORIGIN = 'http://bench.test';
const WARMUP = 2_000;
const [calls = 1_500, rounds = 24] = process.argv
  .slice(2)
  .filter((a) => !a.startsWith('--'))
  .map(Number);
const baseline = process.env.TRADESCRIPT_BENCH_BASELINE_BIN;
if (!baseline) {
  console.error('serverCpuAB: set TRADESCRIPT_BENCH_BASELINE_BIN to the other build (dist/node/server/bin.js)');
  process.exit(2);
}
const builds = [
  ['baseline', baseline],
  ['this', process.env.TRADESCRIPT_BENCH_BIN ?? join(ROOT, 'dist/node/server/bin.js')],
];

/** One chart read, as the page's catalog describes it (relay protocol v1, src/protocol). */
const CONTROL = {
  controlId: 'chart.getVisibleRange',
  controller: 'chart',
  method: 'getVisibleRange',
  signature: 'getVisibleRange(): unknown',
  description: 'The visible time range.',
  args: [],
  targetScopes: ['session', 'chart', 'widget'],
  accessClass: 'read',
  family: 'chart',
  permission: 'read',
  mutation: false,
  risk: 'read',
  revisionDomains: [],
  operationOptionsIndex: null,
};

/** A server of `bin` over stdio, a client, and a tab answering every call at once. */
async function open(bin) {
  const env = { ...process.env, TRADESCRIPT_MCP_HOME: mkdtempSync(join(tmpdir(), 'ts-server-ab-')) };
  const args = [bin, 'serve', '--stdio', '--port', '0', '--allowed-origin', ORIGIN];
  const transport = new StdioClientTransport({ command: process.execPath, args, env, stderr: 'pipe' });
  const ready = new Promise((resolve) => {
    let text = '';
    transport.stderr.on('data', (chunk) => {
      text += chunk;
      const line = /tradescript-mcp ready (.*)/.exec(text);
      if (line) resolve(JSON.parse(line[1]));
    });
  });
  const client = new Client({ name: 'server-cpu-ab', version: '0' });
  await client.connect(transport);
  const { relayUrl } = await ready;
  const pairing = execFileSync(process.execPath, [bin, 'pair', '--grant', 'write', '--json'], { env });
  const { code } = JSON.parse(pairing.toString());
  const ws = new WebSocket(relayUrl, ['tradescript.relay.v1.batch', 'tradescript.relay.v1'], {
    headers: { origin: ORIGIN },
  });
  await new Promise((resolve, reject) => (ws.once('open', resolve), ws.once('error', reject)));
  const waiters = [];
  ws.on('message', (data) => {
    const text = data.toString();
    for (const frame of text[0] === '[' ? JSON.parse(text) : [JSON.parse(text)]) {
      if (frame.t !== 'request') {
        for (const wake of waiters.splice(0)) wake(frame);
        continue;
      }
      const call = frame.op.call;
      const data = {
        operationId: call.operationId ?? 'op',
        origin: 'mcp',
        controlId: call.controlId,
        target: call.target,
        mutation: false,
        revisionsBefore: {},
        revisionsAfter: {},
        durationMs: 0,
        result: { from: 1733450000, to: 1733460000 },
      };
      ws.send(JSON.stringify({ t: 'response', id: frame.id, environment: 'paper', outcome: { ok: true, data } }));
    }
  });
  const next = (t) =>
    new Promise((resolve) => {
      const wake = (frame) => (frame.t === t ? resolve(frame) : waiters.push(wake));
      waiters.push(wake);
    });
  ws.send(
    JSON.stringify({ t: 'hello', v: 1, agent: { kind: 'page', version: 'bench' }, auth: { kind: 'pair', code } }),
  );
  await next('welcome');
  const info = { title: 'server-cpu-ab', environment: 'paper', grant: 'write' };
  ws.send(JSON.stringify({ t: 'session.open', ref: 'r1', info, catalog: { controls: [CONTROL], channels: [] } }));
  const { sessionId } = await next('session.opened');
  const callArgs = { sessionId, target: { scope: 'chart', chartId: 'c1' }, controlId: CONTROL.controlId };
  const call = async () => {
    const result = await client.callTool({ name: 'tradescript_call', arguments: callArgs });
    if (result.isError) throw new Error(`tradescript_call failed: ${JSON.stringify(result).slice(0, 300)}`);
  };
  const close = async () => (ws.terminate(), await client.close());
  return { pid: transport.pid, call, close };
}

const servers = [];
for (const [label, bin] of builds) servers.push({ label, ...(await open(bin)) });
try {
  for (const server of servers) for (let i = 0; i < WARMUP; i++) await server.call();
  const cpu = { baseline: [], this: [] };
  for (let round = 0; round < rounds; round++) {
    for (const server of round % 2 === 0 ? servers : [...servers].reverse()) {
      const before = cpuMs([server.pid]);
      const start = performance.now();
      for (let i = 0; i < calls; i++) await server.call();
      const perCall = (cpuMs([server.pid]) - before) / calls;
      cpu[server.label].push(perCall);
      const wall = (performance.now() - start) / calls;
      console.log(
        `round ${round} ${server.label}: server CPU ${perCall.toFixed(4)} ms/call, wall ${wall.toFixed(3)} ms/call`,
      );
    }
  }
  const ratios = cpu.this.map((x, i) => x / cpu.baseline[i]);
  for (const label of ['baseline', 'this'])
    console.log(`${label}: median server CPU ${median(cpu[label]).toFixed(4)} ms/call`);
  const lower = ratios.filter((r) => r < 1).length;
  console.log(`this/baseline: paired median ${median(ratios).toFixed(3)}, lower in ${lower} of ${rounds} rounds`);
} finally {
  for (const server of servers) await server.close();
}
process.exit(0);
