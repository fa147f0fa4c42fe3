/**
 * Real MCP clients (the SDK's own `Client`) for the two transports the CLI serves.
 */
import type { Readable } from 'node:stream';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { settleWithin, track, trackProcess } from './cleanup.js';
import { assertBuilt, childEnv, makeTempHome, removeTempHome, withEphemeralPort } from './home.js';
import { captureLines } from './lineLog.js';
import { repoRoot, serverBin } from './paths.js';
import { perRequestSignalFetch } from './perRequestFetch.js';
import { killTree, processTree } from './processTree.js';
import { logLines, waitForReady, type ReadyInfo } from './readyLine.js';
import { harnessTimeouts } from './timeouts.js';

const clientInfo = { name: 'tradescript-e2e', version: '0.0.0' };

/** Options of {@link connectHttpClient}. */
export interface HttpClientOptions {
  /** Sent as `Authorization: Bearer …` (for `--token-file`). */
  token?: string;
  /** Extra request headers (e.g. a foreign `Origin`, to test that it is refused). */
  headers?: Record<string, string>;
  /** Overrides {@link harnessTimeouts.connectMs}. */
  timeoutMs?: number;
}

/**
 * Connects an SDK `Client` over Streamable HTTP to `mcpUrl` (the ready line's
 * `mcpUrl`), using a fetch that gives each request its own AbortSignal. The
 * client is closed at the end of the test file at the latest.
 */
export async function connectHttpClient(mcpUrl: string, opts: HttpClientOptions = {}): Promise<Client> {
  const headers: Record<string, string> = { ...opts.headers };
  if (opts.token !== undefined) headers.Authorization = `Bearer ${opts.token}`;
  const transport = new StreamableHTTPClientTransport(new URL(mcpUrl), {
    fetch: perRequestSignalFetch(),
    requestInit: { headers },
  });
  const client = new Client(clientInfo);
  // Closing twice is harmless, so a client the test closed itself may stay registered.
  const untrack = track(() => client.close());
  try {
    await settleWithin(
      client.connect(transport),
      opts.timeoutMs ?? harnessTimeouts.connectMs,
      `MCP initialize with ${mcpUrl}`,
    );
  } catch (error) {
    untrack();
    await client.close().catch(() => {});
    throw error;
  }
  return client;
}

/** Options of {@link connectStdioClient}. */
export interface StdioClientOptions {
  /** The script to run instead of dist/node/server/bin.js (the harness's own tests use a stand-in). */
  bin?: string;
  /** Extra environment for the child (`TRADESCRIPT_MCP_HOME` is always the harness's). */
  env?: Record<string, string | undefined>;
  /** Use this home instead of a fresh temporary one (it is then not removed on close). */
  home?: string;
  /** Append `--port 0` unless the args name a port (default true). */
  ephemeralPort?: boolean;
  /** Overrides {@link harnessTimeouts.readyMs} (for the handshake and the ready line alike). */
  timeoutMs?: number;
}

/** A CLI spawned over stdio and the client connected to it. */
export interface StdioClientHandle {
  client: Client;
  /** The ready line's JSON (`relayUrl`; no `mcpUrl` in stdio mode). */
  ready: ReadyInfo;
  /** Its `TRADESCRIPT_MCP_HOME`. */
  home: string;
  pid: number;
  /** All of the CLI's stderr so far. */
  stderr(): string;
  /** stderr without the ready line (see `ServerHandle.logs`). */
  logs(): string;
  /** Waits for a stderr line (already written or still to come). */
  waitForStderr(match: RegExp | string, timeoutMs?: number): Promise<string>;
  /** Closes the client (which ends the CLI), kills what is left of its tree, removes a temporary home. */
  close(): Promise<void>;
}

/**
 * Spawns `node dist/node/server/bin.js ...args --port 0` through the SDK's
 * `StdioClientTransport` (stderr piped), connects a `Client`, and waits for the
 * ready line on that stderr. `args` are the CLI's, e.g. `['serve', '--stdio']`.
 */
export async function connectStdioClient(
  args: readonly string[],
  opts: StdioClientOptions = {},
): Promise<StdioClientHandle> {
  const bin = opts.bin ?? serverBin;
  if (opts.bin === undefined) assertBuilt();
  const home = opts.home ?? makeTempHome();
  const timeoutMs = opts.timeoutMs ?? harnessTimeouts.readyMs;
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [bin, ...withEphemeralPort(args, opts.ephemeralPort ?? true)],
    env: childEnv(home, opts.env),
    cwd: repoRoot,
    stderr: 'pipe',
  });
  const stderrStream = transport.stderr;
  if (!stderrStream) throw new Error('StdioClientTransport did not expose stderr');
  // Typed `Stream`; with `stderr: 'pipe'` it is a PassThrough.
  const stderr = captureLines(stderrStream as Readable);
  const client = new Client(clientInfo);

  let pid: number | undefined;
  let untrackProcess = (): void => {};
  let closed: Promise<void> | undefined;
  const close = (): Promise<void> =>
    (closed ??= (async () => {
      untrack();
      const tree = pid === undefined ? [] : processTree(pid);
      await client.close().catch(() => {});
      if (pid !== undefined) killTree(pid, 'SIGKILL', tree);
      untrackProcess();
      if (opts.home === undefined) removeTempHome(home);
    })());
  const untrack = track(close);

  let ready: ReadyInfo;
  try {
    const connecting = client.connect(transport);
    pid = transport.pid ?? undefined;
    if (pid !== undefined) {
      const spawned = pid;
      untrackProcess = trackProcess(spawned, () => processTree(spawned));
    }
    await settleWithin(connecting, timeoutMs, `MCP initialize over stdio (${args.join(' ')})`);
    ready = await waitForReady(stderr, timeoutMs);
  } catch (error) {
    await close();
    const tail = stderr.lines().slice(-20).join('\n');
    throw new Error(
      `connectStdioClient(${JSON.stringify(args)}): ${(error as Error).message}\n--- stderr (tail) ---\n${tail}`,
    );
  }
  return {
    client,
    ready,
    home,
    pid: pid ?? -1,
    stderr: stderr.text,
    logs: () => logLines(stderr.lines()),
    waitForStderr: (match, ms = harnessTimeouts.readyMs) => stderr.waitFor(match, ms),
    close,
  };
}
