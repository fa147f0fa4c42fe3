/**
 * Starts one server process (SPEC §1, §2, §9, §11). The first process of a
 * home becomes the hub: it binds the relay port and writes `hub.json`. A later
 * one finds that hub in `hub.json` and links to it as a front instead, serving
 * only its own MCP with its own flags; when the hub's process exits it follows
 * to the next hub or takes over. Heavy modules (the MCP SDK, `ws`) load after
 * the ports listen, except the link a front needs before its ready line.
 */
import type { Readable, Writable } from 'node:stream';
import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import type { ServerConfig } from '../config.js';
import { packageVersion } from '../demoServer/packageRoot.js';
import { pairUrlOf, type ServerUrls } from '../http/adminApi.js';
import type { BoundAddress } from '../http/requestGuard.js';
import type { HubTiming } from '../hub/hub.js';
import type { HubPort } from '../hub/hubPort.js';
import { probeHub } from '../hubLink/discovery.js';
import { createLogger, type Logger } from '../log.js';
import { secureDirectory } from '../pairing/secureFile.js';
import { ownDemo, startFrontRole } from './frontRole.js';
import { startHubRole } from './hubRole.js';

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
  /** Makes an MCP server for one connection (default: the MCP front of `src/server/mcp` on this process's hub port). */
  createMcpServer?: McpServerMaker;
  timing?: Partial<HubTiming>;
  stdin?: Readable;
  stdout?: Writable;
}

/** What {@link startServer} started. */
export interface RunningServer {
  /** `mcpUrl` (HTTP mode), `relayUrl`, and with the demo `demoUrl` and a fresh `pairUrl`. */
  readonly urls: ServerUrls & { pairUrl?: string };
  /** What this process's MCP connections call: its own hub, or the hub it follows. */
  readonly hub: HubPort;
  /** `hub` when this process owns the relay now, `front` when it follows another's. */
  role(): 'hub' | 'front';
  /**
   * Resolves once MCP is connected (stdio) or its modules are loaded (HTTP);
   * rejects when they cannot be, after closing everything.
   */
  readonly mcpReady: Promise<void>;
  /** Resolves once the server closed (stdio ended, or {@link close}). */
  readonly closed: Promise<void>;
  close(): Promise<void>;
}

/** What one role hands the common startup. */
interface Started {
  hub: HubPort;
  urls: ServerUrls;
  role(): 'hub' | 'front';
  pairCode(): Promise<string | null>;
  warm(): Promise<void>;
  stop(): Promise<void>;
}

/**
 * Joins a live hub of this home or becomes the hub, then resolves; MCP over
 * stdio connects right after (stdin buffers meanwhile). Rejects, with
 * everything started so far closed, when a port cannot be bound.
 */
export async function startServer(config: ServerConfig, options: StartOptions): Promise<RunningServer> {
  const logger = options.logger ?? createLogger(config.logLevel);
  const loose = secureDirectory(config.home);
  if (loose !== null) logger.warn('home folder tightened to 0700', { was: `0${loose.toString(8)}` });
  const version = options.serverVersion ?? packageVersion();
  let port: HubPort | null = null;
  const createMcp: McpServerMaker =
    options.createMcpServer ??
    (async (transport) => {
      const { createMcpServer } = await import('../mcp/index.js');
      if (!port) throw new Error('MCP before the hub is known');
      return createMcpServer({ hub: port, config, logger, transport, serverVersion: version });
    });
  const ctx: RoleContext = { config, options, logger, version, createMcp };
  const started = (await startAsFront(ctx)) ?? (await startAsHubOrLateFront(ctx));
  port = started.hub;
  const stdio: { server: Server | null } = { server: null };
  const { close, closed } = closer(async () => {
    await stdio.server?.close().catch(() => undefined);
    await started.stop();
    logger.info('stopped');
  });
  const mcpReady = (
    options.mcp === 'stdio'
      ? connectStdio(createMcp, options, close).then((server) => void (stdio.server = server))
      : Promise.resolve(options.createMcpServer ? undefined : import('../mcp/index.js')).then(() => undefined)
  ).then(
    () => started.warm(),
    async (error: unknown) => {
      await close();
      throw error;
    },
  );
  // Whoever awaits mcpReady sees the failure; nobody awaiting must not crash the process.
  mcpReady.catch(() => undefined);
  const code = started.urls.demoUrl ? await started.pairCode() : null;
  const pairUrl = code === null ? null : pairUrlOf(started.urls.demoUrl, code);
  return {
    urls: { ...started.urls, ...(pairUrl ? { pairUrl } : {}) },
    hub: started.hub,
    role: started.role,
    mcpReady,
    closed,
    close,
  };
}

interface RoleContext {
  config: ServerConfig;
  options: StartOptions;
  logger: Logger;
  version: string;
  createMcp: McpServerMaker;
}

/** The hub role on this process's own port; when a hub appeared meanwhile and holds it, a front of that hub. */
async function startAsHubOrLateFront(ctx: RoleContext): Promise<Started> {
  const { config, options, logger, version, createMcp } = ctx;
  try {
    const role = await startHubRole({
      config,
      bind: options.bind,
      mcp: options.mcp === 'http' ? () => createMcp('http') : null,
      demo: options.demo,
      demoRoot: options.demoRoot,
      logger,
      version,
      timing: options.timing,
    });
    return {
      hub: role.hub,
      urls: role.urls,
      role: () => 'hub',
      pairCode: async () => role.pairing.issueCode(config.pairGrant).code,
      warm: () => role.warm(),
      stop: () => role.close(),
    };
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EADDRINUSE') throw error;
    // Another process may have bound the relay a moment ago: follow it once its hub.json is written.
    const late = await waitForHub(ctx, 1_000);
    if (!late) throw error;
    return late;
  }
}

async function waitForHub(ctx: RoleContext, ms: number): Promise<Started | null> {
  const until = Date.now() + ms;
  while (Date.now() < until) {
    const started = await startAsFront(ctx);
    if (started) return started;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return null;
}

/** A front of the live hub `hub.json` names, or null when there is none (or its port is closed). */
async function startAsFront(ctx: RoleContext): Promise<Started | null> {
  const { config, options, logger, version, createMcp } = ctx;
  const file = await probeHub(config.home);
  if (!file) return null;
  const demo = await ownDemo(options.demo, file.demoUrl, () => file.relayUrl, options.demoRoot);
  const role = await startFrontRole(file, {
    config,
    mcp: options.mcp === 'http' ? () => createMcp('http') : null,
    bind: options.bind,
    demo,
    logger,
    version,
    timing: options.timing,
    demoRoot: options.demoRoot,
  }).catch(async (error: unknown) => {
    await demo?.close();
    throw error;
  });
  logger.info('joining the hub of hub.json', { hubPid: file.pid });
  return {
    hub: role.hub,
    urls: role.urls,
    role: () => (role.ownHub() ? 'hub' : 'front'),
    pairCode: () => role.pairCode(),
    warm: () => role.warm(),
    stop: () => role.close(),
  };
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
