/**
 * The MCP SDK ALONE (SPEC §12): the same SDK v2 `Client` calling one trivial
 * tool of an SDK `Server` (bench/fixtures/sdkServer.mjs) over stdio and
 * Streamable HTTP (2025-11-25 sessions, and 2026-07-28 stateless).
 *
 * With `{ echo: true }` the server is the bare composite (the fixture's
 * `--echo`: each call forwarded over a WebSocket to the ws floor's echo page
 * and answered when the echo returns); the handle then has `echoUrl`, the page
 * to open in a tab of the browser, and calls wait until that page connects.
 */
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { spawnUntilLine, stopChild } from '../lib/processes.mjs';

const READY = 'sdk-anchor ready ';
const fixture = fileURLToPath(new URL('../fixtures/sdkServer.mjs', import.meta.url));
const clientInfo = { name: 'tradescript-bench', version: '0.0.0' };
const REQUEST = { name: 'ping', arguments: {} };

/** @param {Client} client */
function caller(client) {
  return async () => {
    const result = await client.callTool(REQUEST, { timeout: 30_000 });
    return result.isError !== true;
  };
}

/**
 * The SDK server over stdio, spawned by the client's transport.
 * @param {{ echo?: boolean }} [opts]
 */
export async function openSdkStdio({ echo = false } = {}) {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [fixture, '--stdio', ...(echo ? ['--echo'] : [])],
    stderr: echo ? 'pipe' : 'ignore',
  });
  const readyLine = echo ? firstLine(transport.stderr, READY) : null;
  const client = new Client(clientInfo);
  await client.connect(transport);
  const rest = readyLine ? await readyLine : null;
  await client.listTools();
  return {
    call: caller(client),
    close: () => client.close(),
    pid: transport.pid,
    ...(rest ? { echoUrl: JSON.parse(rest).echoUrl } : {}),
  };
}

/** The rest of the first line of `stream` that starts with `prefix` (then the stream is left to drain). */
function firstLine(stream, prefix) {
  return new Promise((resolve, reject) => {
    const lines = createInterface({ input: stream });
    const timer = setTimeout(() => reject(new Error(`no "${prefix.trim()}" line within 20 s`)), 20_000);
    lines.on('line', (line) => {
      if (!line.startsWith(prefix)) return;
      clearTimeout(timer);
      resolve(line.slice(prefix.length));
    });
  });
}

/**
 * The SDK server over Streamable HTTP: 2025-11-25 sessions, or with `modern`
 * the stateless 2026-07-28 handler and a client pinned to that revision.
 * @param {{ perRequestSignalFetch: Function }} h the harness
 * @param {boolean} [modern]
 * @param {{ echo?: boolean }} [opts]
 */
export async function openSdkHttp(h, modern = false, { echo = false } = {}) {
  const { child, rest } = await spawnUntilLine(
    [fixture, modern ? '--http2026' : '--http', ...(echo ? ['--echo'] : [])],
    {
      prefix: READY,
    },
  );
  const { url, echoUrl } = JSON.parse(rest);
  const transport = new StreamableHTTPClientTransport(new URL(url), { fetch: h.perRequestSignalFetch() });
  const client = new Client(clientInfo, modern ? { versionNegotiation: { mode: { pin: '2026-07-28' } } } : {});
  await client.connect(transport);
  await client.listTools();
  return {
    call: caller(client),
    close: async () => {
      await client.close().catch(() => {});
      child.stdin?.end();
      await stopChild(child);
    },
    pid: child.pid,
    ...(echoUrl ? { echoUrl } : {}),
  };
}
