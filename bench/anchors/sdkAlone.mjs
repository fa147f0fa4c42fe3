/**
 * The MCP SDK ALONE (SPEC §12): the same SDK v2 `Client` calling one trivial
 * tool of an SDK `Server` (bench/fixtures/sdkServer.mjs) over stdio and
 * Streamable HTTP (2025-11-25 sessions, and 2026-07-28 stateless).
 */
import { fileURLToPath } from 'node:url';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { spawnUntilLine, stopChild } from '../lib/processes.mjs';

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

/** The SDK server over stdio, spawned by the client's transport. */
export async function openSdkStdio() {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [fixture, '--stdio'],
    stderr: 'ignore',
  });
  const client = new Client(clientInfo);
  await client.connect(transport);
  await client.listTools();
  return { call: caller(client), close: () => client.close() };
}

/**
 * The SDK server over Streamable HTTP: 2025-11-25 sessions, or with `modern`
 * the stateless 2026-07-28 handler and a client pinned to that revision.
 * @param {{ perRequestSignalFetch: Function }} h the harness
 * @param {boolean} [modern]
 */
export async function openSdkHttp(h, modern = false) {
  const { child, rest } = await spawnUntilLine([fixture, modern ? '--http2026' : '--http'], {
    prefix: 'sdk-anchor ready ',
  });
  const { url } = JSON.parse(rest);
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
  };
}
