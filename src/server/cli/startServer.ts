/**
 * Starts one server process's parts (SPEC §1, §11): pairing, the hub, the
 * MCP/relay port, optionally the demo's own origin, and MCP over stdio or
 * Streamable HTTP. Writes `hub.json` for the CLI and removes it on close.
 * Heavy modules (the MCP SDK, `ws`) load after the ports listen.
 */
import { randomBytes } from 'node:crypto';
import type { Readable, Writable } from 'node:stream';
import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import type { ServerConfig } from '../config.js';
import { startDemoServer, type DemoServer } from '../demoServer/demoServer.js';
import { packageVersion } from '../demoServer/packageRoot.js';
import { pairUrlOf, type AdminContext, type ServerUrls } from '../http/adminApi.js';
import { startFrontServer, type FrontServer } from '../http/frontServer.js';
import { removeHubFile, writeHubFile } from '../http/hubFile.js';
import type { BoundAddress } from '../http/requestGuard.js';
import { Hub, type HubTiming } from '../hub/hub.js';
import { createLogger, type Logger } from '../log.js';
import { Pairing } from '../pairing/pairing.js';
import { loopbackOrigins } from '../relay/originPolicy.js';

/** Makes the MCP server of one connection. */
export type McpServerMaker = (transport: 'stdio' | 'http') => Promise<Server>;

/** How one process serves. */
export interface StartOptions {
  /** `http`: MCP on `/mcp` of `bind`; `stdio`: MCP on stdin/stdout (the relay still listens on `bind`). */
  mcp: 'http' | 'stdio';
  /** The MCP/relay address (port 0: ephemeral). */
  bind: BoundAddress;
  /** The demo terminal's address, or null when the demo is not served. */
  demo: BoundAddress | null;
  logger?: Logger;
  serverVersion?: string;
  /** Where the built demo is (default `<package>/dist/demo`). */
  demoRoot?: string;
  /** Makes an MCP server for one connection (default: the MCP front of `src/server/mcp`). */
  createMcpServer?: McpServerMaker;
  timing?: Partial<HubTiming>;
  stdin?: Readable;
  stdout?: Writable;
}

/** What {@link startServer} started. */
export interface RunningServer {
  /** `mcpUrl` (HTTP mode), `relayUrl`, and with the demo `demoUrl` and a fresh `pairUrl`. */
  readonly urls: ServerUrls & { pairUrl?: string };
  readonly hub: Hub;
  readonly pairing: Pairing;
  /**
   * Resolves once MCP is connected (stdio) or its modules are loaded (HTTP);
   * rejects when they cannot be, after closing everything.
   */
  readonly mcpReady: Promise<void>;
  /** Resolves once the server closed (stdio ended, or {@link close}). */
  readonly closed: Promise<void>;
  close(): Promise<void>;
}

/**
 * Listens, writes `hub.json` and resolves; MCP over stdio connects right after
 * (stdin buffers meanwhile). Rejects, with everything started so far closed,
 * when a port cannot be bound.
 */
export async function startServer(config: ServerConfig, options: StartOptions): Promise<RunningServer> {
  const logger = options.logger ?? createLogger(config.logLevel);
  const version = options.serverVersion ?? packageVersion();
  const pairing = new Pairing({ home: config.home });
  if (pairing.store.setAside) logger.warn('unreadable credentials file set aside; hosts must pair again');
  const hub = new Hub({ auth: pairing, logger: logger.child('hub'), serverVersion: version, timing: options.timing });
  const createMcp =
    options.createMcpServer ??
    (async (transport) => {
      const { createMcpServer } = await import('../mcp/index.js');
      return createMcpServer({ hub, config, logger, transport, serverVersion: version });
    });
  let urls: ServerUrls = { relayUrl: '' };
  const relayOrigins = [...config.allowedOrigins];
  const admin = adminContext(hub, pairing, logger, version, config, () => urls);
  const front = await startFrontServer(options.bind, {
    hub,
    logger,
    bearerToken: config.bearerToken,
    mcp: options.mcp === 'http' ? () => createMcp('http') : null,
    relayOrigins: () => relayOrigins,
    admin: () => admin,
  });
  const demo = await startDemoOrClose(options, front);
  if (demo) relayOrigins.push(...loopbackOrigins(demo.bound.port));
  urls = {
    ...(options.mcp === 'http' ? { mcpUrl: front.mcpUrl } : {}),
    relayUrl: front.relayUrl,
    ...(demo ? { demoUrl: demo.url } : {}),
  };
  const stdio: { server: Server | null } = { server: null };
  const { close, closed } = closer(async () => {
    hub.close();
    await stdio.server?.close().catch(() => undefined);
    await Promise.all([front.close(), demo?.close()]);
    removeHubFile(config.home);
    logger.info('stopped');
  });
  writeHubFile(config.home, hubFile(version, front, admin.token, urls));
  const mcpReady = (
    options.mcp === 'stdio'
      ? connectStdio(createMcp, options, close).then((server) => void (stdio.server = server))
      : Promise.resolve(options.createMcpServer ? undefined : import('../mcp/index.js')).then(() => undefined)
  ).then(
    () => front.warm(),
    async (error: unknown) => {
      await close();
      throw error;
    },
  );
  // Whoever awaits mcpReady sees the failure; nobody awaiting must not crash the process.
  mcpReady.catch(() => undefined);
  const pairUrl = demo ? (pairUrlOf(demo.url, pairing.issueCode(config.pairGrant).code) ?? undefined) : undefined;
  return { urls: { ...urls, ...(pairUrl ? { pairUrl } : {}) }, hub, pairing, mcpReady, closed, close };
}

function adminContext(
  hub: Hub,
  pairing: Pairing,
  logger: Logger,
  version: string,
  config: ServerConfig,
  urls: () => ServerUrls,
): AdminContext {
  const token = randomBytes(24).toString('base64url');
  return { hub, pairing, logger: logger.child('admin'), token, version, defaultGrant: config.pairGrant, urls };
}

function hubFile(version: string, front: FrontServer, adminToken: string, urls: ServerUrls) {
  return {
    version: 1 as const,
    pid: process.pid,
    serverVersion: version,
    startedAt: new Date().toISOString(),
    adminUrl: `${front.origin}/admin`,
    adminToken,
    ...urls,
  };
}

async function startDemoOrClose(options: StartOptions, front: FrontServer): Promise<DemoServer | null> {
  if (!options.demo) return null;
  try {
    return await startDemoServer(options.demo, { relayUrl: () => front.relayUrl, root: options.demoRoot });
  } catch (error) {
    await front.close();
    throw error;
  }
}

/** A close that runs once, even when re-entered from inside itself (closing stdio calls back). */
function closer(stop: () => Promise<void>): { close: () => Promise<void>; closed: Promise<void> } {
  let resolveClosed = () => {};
  const closed = new Promise<void>((resolve) => (resolveClosed = resolve));
  let stopping = false;
  const close = async (): Promise<void> => {
    if (stopping) return closed;
    stopping = true;
    await stop();
    resolveClosed();
  };
  return { close, closed };
}

/** MCP over stdio: the process's one attachment; stdin ending (or the person detaching it) stops the server. */
async function connectStdio(
  createMcp: McpServerMaker,
  options: StartOptions,
  close: () => Promise<void>,
): Promise<Server> {
  const { StdioServerTransport } = await import('@modelcontextprotocol/sdk/server/stdio.js');
  const stdin = options.stdin ?? process.stdin;
  const transport = new StdioServerTransport(stdin, options.stdout ?? process.stdout);
  const server = await createMcp('stdio');
  // Set before connect: the SDK chains it with its own close handling.
  transport.onclose = () => void close();
  stdin.once('end', () => void close());
  await server.connect(transport);
  return server;
}
