/**
 * The server alone, without a browser (bench/serverCpuAB.mjs, bench/serverGc.mjs):
 * a build's `serve --stdio` with an MCP SDK client, and a Node WebSocket "tab"
 * that pairs with it, opens one session with one chart read, and answers every
 * relay request at once. The frames are written by hand, not through
 * e2e/harness/rawTab.ts: RawTab keeps every frame and opens without the batch
 * subprotocol a real page uses.
 */
import { execFileSync } from 'node:child_process';
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import WebSocket from 'ws';

/** The origin the servers allow and the tab claims. */
export const ORIGIN = 'http://bench.test';

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

/** The ready line's JSON once `stream` (the server's stderr) prints it. */
export function readyLine(stream) {
  return new Promise((resolve) => {
    let text = '';
    stream.on('data', (chunk) => {
      text += chunk;
      const line = /tradescript-mcp ready (.*)/.exec(text);
      if (line) resolve(JSON.parse(line[1]));
    });
  });
}

/** `bin` serving MCP over stdio, and its client named `name` (the client's transport spawns it). */
export async function openStdio(bin, env, name) {
  const args = [bin, 'serve', '--stdio', '--port', '0', '--allowed-origin', ORIGIN];
  const transport = new StdioClientTransport({ command: process.execPath, args, env, stderr: 'pipe' });
  const ready = readyLine(transport.stderr);
  const client = new Client({ name, version: '0' });
  await client.connect(transport);
  const { relayUrl } = await ready;
  return { pid: transport.pid, client, relayUrl, stop: () => client.close() };
}

/**
 * Pairs a tab with the server of `bin` (its home in `env`) at `relayUrl`,
 * opens a session titled `title` whose one control every request gets answered
 * at once, and returns `tradescript_call`'s arguments for that control.
 */
export async function answeringTab({ bin, env, relayUrl, title }) {
  const pairing = execFileSync(process.execPath, [bin, 'pair', '--grant', 'write', '--json'], { env });
  const { code } = JSON.parse(pairing.toString());
  // Offered as a current page does: a server with call contexts picks them, an older one batches alone.
  const protocols = ['tradescript.relay.v1.context', 'tradescript.relay.v1.batch', 'tradescript.relay.v1'];
  const ws = new WebSocket(relayUrl, protocols, {
    headers: { origin: ORIGIN },
  });
  await new Promise((resolve, reject) => (ws.once('open', resolve), ws.once('error', reject)));
  const waiters = [];
  ws.on('message', (data) => {
    const text = data.toString();
    for (const frame of text[0] === '[' ? JSON.parse(text) : [JSON.parse(text)]) {
      // A call context (`context` frame) needs nothing from this tab: the call is all a request names.
      if (frame.t === 'context') continue;
      if (frame.t !== 'request' && frame.t !== 'request.ref') {
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
  const info = { title, environment: 'paper', grant: 'write' };
  ws.send(JSON.stringify({ t: 'session.open', ref: 'r1', info, catalog: { controls: [CONTROL], channels: [] } }));
  const { sessionId } = await next('session.opened');
  const callArgs = { sessionId, target: { scope: 'chart', chartId: 'c1' }, controlId: CONTROL.controlId };
  return { callArgs, close: () => ws.terminate() };
}
