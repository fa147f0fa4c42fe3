/**
 * Real MCP clients for the two transports the CLI serves. The default is the
 * SDK v2 `Client` (`@modelcontextprotocol/client`) speaking 2025-11-25, the
 * revision most installed clients speak; `era: 'modern'` makes it speak
 * 2026-07-28 (over stdio through the SDK's own version probe, which spawns a
 * short-lived sibling of the server first). The `V1` variants are the v1 SDK
 * (`@modelcontextprotocol/sdk`, a dev dependency for this only): a 2025-11-25
 * client as it is deployed today.
 */
import type { Readable } from 'node:stream';
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { Client as V1Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport as V1StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport as V1HttpTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { settleWithin, track, trackProcess } from './cleanup.js';
import { assertBuilt, childEnv, makeTempHome, removeTempHome, withEphemeralPort } from './home.js';
import { captureLines } from './lineLog.js';
import { repoRoot, serverBin } from './paths.js';
import { perRequestSignalFetch } from './perRequestFetch.js';
import { killTree, processTree } from './processTree.js';
import { logLines, waitForReady, type ReadyInfo } from './readyLine.js';
import { harnessTimeouts } from './timeouts.js';

const clientInfo = { name: 'tradescript-e2e', version: '0.0.0' };

/** Either SDK's client: what {@link callTool} and the flows accept. */
export type AnyMcpClient = Client | V1Client;

/** Which protocol revision a v2 client speaks. */
export type Era = 'legacy' | 'modern';

/**
 * A v2 client: 2025-11-25 by default (no probe); `modern` over HTTP pins
 * 2026-07-28, over stdio negotiates `auto` like a deployed 2026 client.
 */
function v2Client(era: Era = 'legacy', name = clientInfo.name, over: 'http' | 'stdio' = 'http'): Client {
  if (era === 'legacy') return new Client({ ...clientInfo, name });
  const mode = over === 'http' ? { pin: '2026-07-28' as const } : ('auto' as const);
  return new Client({ ...clientInfo, name }, { versionNegotiation: { mode } });
}

/** Options of {@link connectHttpClient}. */
export interface HttpClientOptions {
  /** Sent as `Authorization: Bearer …` (for `--token-file`). */
  token?: string;
  /** Extra request headers (e.g. a foreign `Origin`, to test that it is refused). */
  headers?: Record<string, string>;
  /** Overrides {@link harnessTimeouts.connectMs}. */
  timeoutMs?: number;
  /** The protocol revision (default 2025-11-25). */
  era?: Era;
  /** The client's name (default `tradescript-e2e`). */
  name?: string;
}

function httpHeaders(opts: HttpClientOptions): Record<string, string> {
  const headers: Record<string, string> = { ...opts.headers };
  if (opts.token !== undefined) headers.Authorization = `Bearer ${opts.token}`;
  return headers;
}

async function connectTracked<C extends { close(): Promise<void> }>(
  client: C,
  connect: Promise<void>,
  timeoutMs: number,
  what: string,
): Promise<C> {
  // Closing twice is harmless, so a client the test closed itself may stay registered.
  const untrack = track(() => client.close());
  try {
    await settleWithin(connect, timeoutMs, what);
  } catch (error) {
    untrack();
    await client.close().catch(() => {});
    throw error;
  }
  return client;
}

/**
 * Connects an SDK v2 `Client` over Streamable HTTP to `mcpUrl` (the ready
 * line's `mcpUrl`), using a fetch that gives each request its own
 * AbortSignal. The client is closed at the end of the test file at the latest.
 */
export async function connectHttpClient(mcpUrl: string, opts: HttpClientOptions = {}): Promise<Client> {
  const transport = new StreamableHTTPClientTransport(new URL(mcpUrl), {
    fetch: perRequestSignalFetch(),
    requestInit: { headers: httpHeaders(opts) },
  });
  const client = v2Client(opts.era, opts.name);
  const what = `MCP ${opts.era === 'modern' ? 'discover' : 'initialize'} with ${mcpUrl}`;
  return connectTracked(client, client.connect(transport), opts.timeoutMs ?? harnessTimeouts.connectMs, what);
}

/** The v1 SDK's client over Streamable HTTP: a 2025-11-25 client as deployed today. */
export async function connectV1HttpClient(mcpUrl: string, opts: HttpClientOptions = {}): Promise<V1Client> {
  const transport = new V1HttpTransport(new URL(mcpUrl), {
    fetch: perRequestSignalFetch(),
    requestInit: { headers: httpHeaders(opts) },
  });
  const client = new V1Client({ ...clientInfo, name: opts.name ?? clientInfo.name });
  return connectTracked(
    client,
    client.connect(transport),
    opts.timeoutMs ?? harnessTimeouts.connectMs,
    `MCP initialize (v1) with ${mcpUrl}`,
  );
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
  /** The protocol revision (default 2025-11-25); `modern` negotiates with the SDK's sibling probe. */
  era?: Era;
  /** The client's name (default `tradescript-e2e`). */
  name?: string;
}

/** A CLI spawned over stdio and the client connected to it. */
export interface StdioClientHandle<C = Client> {
  client: C;
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

interface StdioTransportLike {
  readonly stderr: unknown;
  readonly pid: number | null;
}

/**
 * Spawns `node dist/node/server/bin.js ...args --port 0` through the SDK v2's
 * `StdioClientTransport` (stderr piped), connects a `Client`, and waits for
 * the ready line on that stderr. `args` are the CLI's, e.g. `['serve', '--stdio']`.
 */
export function connectStdioClient(args: readonly string[], opts: StdioClientOptions = {}): Promise<StdioClientHandle> {
  return spawnStdio(args, opts, (params) => {
    const transport = new StdioClientTransport(params);
    const client = v2Client(opts.era, opts.name, 'stdio');
    return { client, transport, connect: () => client.connect(transport) };
  });
}

/** {@link connectStdioClient} with the v1 SDK's client (2025-11-25). */
export function connectV1StdioClient(
  args: readonly string[],
  opts: StdioClientOptions = {},
): Promise<StdioClientHandle<V1Client>> {
  return spawnStdio(args, opts, (params) => {
    const transport = new V1StdioClientTransport(params);
    const client = new V1Client({ ...clientInfo, name: opts.name ?? clientInfo.name });
    return { client, transport, connect: () => client.connect(transport) };
  });
}

interface StdioParams {
  command: string;
  args: string[];
  env: Record<string, string>;
  cwd: string;
  stderr: 'pipe';
}

async function spawnStdio<C extends { close(): Promise<void> }>(
  args: readonly string[],
  opts: StdioClientOptions,
  make: (params: StdioParams) => { client: C; transport: StdioTransportLike; connect: () => Promise<void> },
): Promise<StdioClientHandle<C>> {
  const bin = opts.bin ?? serverBin;
  if (opts.bin === undefined) assertBuilt();
  const home = opts.home ?? makeTempHome();
  const timeoutMs = opts.timeoutMs ?? harnessTimeouts.readyMs;
  const { client, transport, connect } = make({
    command: process.execPath,
    args: [bin, ...withEphemeralPort(args, opts.ephemeralPort ?? true)],
    env: childEnv(home, opts.env) as Record<string, string>,
    cwd: repoRoot,
    stderr: 'pipe',
  });
  const stderrStream = transport.stderr;
  if (!stderrStream) throw new Error('StdioClientTransport did not expose stderr');
  // Typed `Stream`; with `stderr: 'pipe'` it is a PassThrough.
  const stderr = captureLines(stderrStream as Readable);

  let pid: number | undefined;
  let untrackProcess = (): void => {};
  const watch = () => {
    if (pid !== undefined || transport.pid === null) return;
    const spawned = transport.pid;
    pid = spawned;
    untrackProcess = trackProcess(spawned, () => processTree(spawned));
  };
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
    const connecting = connect();
    // A 2025 client spawns at once; a 2026 one after its probe: the pid is known then.
    watch();
    await settleWithin(connecting, timeoutMs, `MCP connect over stdio (${args.join(' ')})`);
    watch();
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
