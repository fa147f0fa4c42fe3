/**
 * Starts one server process (SPEC §1, §2, §9, §11). The first process of a
 * home becomes the hub: it binds the relay port and writes `hub.json`. A later
 * one finds that hub in `hub.json` and links to it as a front instead, serving
 * only its own MCP with its own flags; when the hub's process exits it follows
 * to the next hub or takes over. What only some processes use loads when first
 * used, so an idle server holds no more than it needs (SPEC §12): the front
 * role with a hub to follow, `ws` with the first socket, over HTTP the MCP SDK
 * and our MCP front with the first `/mcp` request, over stdio the MCP SDK
 * with stdin's first bytes and our MCP front with the client's first message.
 * The hub role's machinery (its schemas, the hub, the relay) loads with the
 * first request or socket on its port, or MCP's first call to the hub; what
 * arrives meanwhile waits for it (`hubRole.ts`).
 */
import type { Readable, Writable } from 'node:stream';
import type { Server } from '@modelcontextprotocol/server';
import type { ServerConfig } from '../config.js';
import { packageVersion } from '../http/demo/packageRoot.js';
import type { ServerUrls } from '../http/adminApi.js';
import { hubFileExists } from '../http/hubFilePath.js';
import type { McpServerFactory } from '../http/mcpEndpoint.js';
import type { BoundAddress } from '../http/requestGuard.js';
import type { HubTiming } from '../hub/hub.js';
import type { HubPort } from '../hub/hubPort.js';
import type { McpExtension } from '../mcp/createMcpServer.js';
import { createLogger, type Logger } from '../log.js';
import { secureDirectory } from '../pairing/secureFile.js';
import { pairUrlOf } from '../http/pairUrl.js';
import { DeferredHubPort } from './deferredHub.js';
import { openHubRole, type HubRoleOptions } from './hubRole.js';
import { DISCOVER, watchStdin, type StdinWatch } from './stdinWatch.js';
import { batchWritesPerTick } from './tickWrites.js';

/** Makes the MCP server of one stdio connection, for the revision family its opening chose. */
export type McpServerMaker = (era: 'legacy' | 'modern') => Promise<Server>;

/**
 * How long a stdio process looks for a first message already waiting on stdin
 * before it takes its role (a client that spawned it has written by then).
 */
export const FIRST_MESSAGE_WAIT_MS = 20;
/** How long a process that was asked `server/discover` waits for a second message before taking its role anyway. */
export const AFTER_DISCOVER_WAIT_MS = 1_000;

/** Stdin ended after a lone `server/discover` (a version probe): the process served it and took no role. */
export class ProbeEnded extends Error {
  constructor() {
    super('stdin ended after server/discover: a version probe, served without joining the hub');
    this.name = 'ProbeEnded';
  }
}

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
  /** Makes the MCP server of the stdio connection (default: the MCP front of `src/server/mcp` on this process's hub port). */
  createMcpServer?: McpServerMaker;
  timing?: Partial<HubTiming>;
  /** Adds to every MCP server instance (test fixtures only, e.g. the conformance suite's tools; never the product). */
  extendMcp?: McpExtension;
  stdin?: Readable;
  stdout?: Writable;
  /** Loads the hub role's machinery (tests: one that cannot load). */
  hubMachinery?: HubRoleOptions['machinery'];
}

/** What {@link startServer} started. */
export interface RunningServer {
  /** `mcpUrl` (HTTP mode), `relayUrl`, and with the demo `demoUrl` and a fresh `pairUrl`. */
  readonly urls: ServerUrls & { pairUrl?: string };
  /** What this process's MCP connections call: its own hub, or the hub it follows (calls wait while the hub loads). */
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
  /** Why the server closed itself (its hub could not load, SPEC §12), or null. */
  failure(): Error | null;
  close(): Promise<void>;
}

/** What one role hands the common startup. */
interface Started {
  /** The role's hub, once its machinery runs; rejects when it cannot load. */
  hub: Promise<HubPort>;
  /** Starts loading what the role loads when first needed (once; a request on its port starts it too). */
  load(): void;
  urls: ServerUrls;
  role(): 'hub' | 'front';
  pairCode(): Promise<string | null>;
  stop(): Promise<void>;
}

/**
 * Joins a live hub of this home or becomes the hub, then resolves. Over
 * stdio, MCP is served first (on a hub port that waits for the role), so a
 * version probe that only sends `server/discover` is answered without taking
 * a role: it rejects with {@link ProbeEnded} when stdin ends after it.
 * Rejects, with everything started so far closed, when a port cannot be bound.
 */
export async function startServer(config: ServerConfig, options: StartOptions): Promise<RunningServer> {
  const logger = options.logger ?? createLogger(config.logLevel);
  const loose = secureDirectory(config.home);
  if (loose !== null) logger.warn('home folder tightened to 0700', { was: `0${loose.toString(8)}` });
  const version = options.serverVersion ?? packageVersion();
  const port = new DeferredHubPort();
  const createHttp: McpServerFactory = async () => {
    const { createHttpFront, homeKeySource } = await import('../mcp/index.js');
    return createHttpFront({
      hub: port,
      config,
      logger,
      serverVersion: version,
      keySource: homeKeySource(config.home),
      ...(options.extendMcp ? { extend: options.extendMcp } : {}),
    });
  };
  const createStdio: McpServerMaker =
    options.createMcpServer ??
    (async (era) => {
      const { createMcpServer } = await import('../mcp/index.js');
      const extend = options.extendMcp;
      return createMcpServer({
        hub: port,
        config,
        logger,
        transport: 'stdio',
        serverVersion: version,
        era,
        ...(extend ? { extend } : {}),
      });
    });
  const stdio = options.mcp === 'stdio' ? await openStdio(createStdio, options, logger) : null;
  const ctx: RoleContext = { config, options, logger, version, createHttp };
  let started: Started;
  try {
    if (stdio) await stdio.untilRoleNeeded();
    started = (await startAsFollower(ctx)) ?? (await startAsHubOrFollower(ctx));
  } catch (error) {
    await stdio?.close();
    throw error;
  }
  let failure: Error | null = null;
  started.hub.then(
    (hub) => port.use(hub),
    (error: unknown) => {
      failure = error instanceof Error ? error : new Error(String(error));
      port.fail(failure);
      void close();
    },
  );
  // MCP's first call to the hub loads it, if its port has not yet.
  void port.wanted.then(started.load);
  const { close, closed } = closer(async () => {
    await stdio?.close();
    await started.stop();
    logger.info('stopped');
  });
  stdio?.onEnd(() => void close());
  const mcpReady = (stdio ? stdio.connected : mcpModulesFound()).catch(async (error: unknown) => {
    await close();
    throw error;
  });
  // Whoever awaits mcpReady sees the failure; nobody awaiting must not crash the process.
  mcpReady.catch(() => undefined);
  const code = started.urls.demoUrl ? await started.pairCode() : null;
  const pairUrl = code === null ? null : pairUrlOf(started.urls.demoUrl, code);
  return {
    urls: { ...started.urls, ...(pairUrl ? { pairUrl } : {}) },
    hub: port,
    role: started.role,
    mcpReady,
    closed,
    failure: () => failure,
    close,
  };
}

interface RoleContext {
  config: ServerConfig;
  options: StartOptions;
  logger: Logger;
  version: string;
  createHttp: McpServerFactory;
}

/** The hub role on this process's own port; when a hub appeared meanwhile and holds it, a front of that hub. */
async function startAsHubOrFollower(ctx: RoleContext): Promise<Started> {
  const { config, options, logger, version, createHttp } = ctx;
  try {
    const role = await openHubRole({
      config,
      bind: options.bind,
      mcp: options.mcp === 'http' ? createHttp : null,
      demo: options.demo,
      demoRoot: options.demoRoot,
      logger,
      version,
      timing: options.timing,
      ...(options.hubMachinery ? { machinery: options.hubMachinery } : {}),
    });
    return {
      hub: role.running.then(
        (running) => running.hub,
        (error: unknown) => {
          throw new Error(`the hub could not load: ${error instanceof Error ? error.message : String(error)}`, {
            cause: error,
          });
        },
      ),
      load: () => void role.loaded().catch(() => undefined),
      urls: role.urls,
      role: () => 'hub',
      pairCode: async () => role.pairCode(),
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
    const started = await startAsFollower(ctx);
    if (started) return started;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return null;
}

/** A front of the live hub `hub.json` names, or null when there is none (or its port is closed). */
async function startAsFollower(ctx: RoleContext): Promise<Started | null> {
  const { config, options, logger, version, createHttp } = ctx;
  // No hub.json, no hub to follow: the common first start reads no schema for it.
  if (!hubFileExists(config.home)) return null;
  const { probeHub } = await import('../hubLink/discovery.js');
  const file = await probeHub(config.home);
  if (!file) return null;
  const { ownDemo, startFollowerRole } = await import('./followerRole.js');
  const demo = await ownDemo(options.demo, file.demoUrl, () => file.relayUrl, options.demoRoot);
  const role = await startFollowerRole(file, {
    config,
    mcp: options.mcp === 'http' ? createHttp : null,
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
    hub: Promise.resolve(role.hub),
    load: () => undefined,
    urls: role.urls,
    role: () => (role.ownHub() ? 'hub' : 'front'),
    pairCode: () => role.pairCode(),
    stop: () => role.close(),
  };
}

/**
 * Over HTTP, MCP is ready once its modules can be found: they load with the
 * first `/mcp` request, not while the server idles. Resolving the names reads
 * no module.
 */
async function mcpModulesFound(): Promise<void> {
  import.meta.resolve('@modelcontextprotocol/server');
  import.meta.resolve('../mcp/index.js');
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

/** MCP over stdio, served before the role is known. */
interface StdioServing {
  /** Resolves once MCP is connected. */
  readonly connected: Promise<void>;
  /** Resolves when the process must take its role; rejects with {@link ProbeEnded} for a lone probe. */
  untilRoleNeeded(): Promise<void>;
  /** Calls `stop` when stdin ends or the connection closes (the person detaching it included). */
  onEnd(stop: () => void): void;
  close(): Promise<void>;
}

/**
 * MCP over stdio through `serveStdio` (both revisions; the opening message
 * pins one): the process's one attachment. Stdin ending, or the connection
 * closing, stops the server. The SDK loads with stdin's first bytes (kept
 * until it reads them), as over HTTP it loads with the first `/mcp` request:
 * a process nobody has spoken to yet has not needed it.
 */
async function openStdio(createMcp: McpServerMaker, options: StartOptions, logger: Logger): Promise<StdioServing> {
  const stdin = options.stdin ?? process.stdin;
  const watch = watchStdin(stdin);
  const stops: Array<() => void> = [];
  let ended = false;
  const end = () => {
    if (ended) return;
    ended = true;
    stops.forEach((stop) => stop());
  };
  let serving: Promise<{ close(): Promise<void> }> | null = null;
  const serve = () =>
    (serving ??= (async () => {
      const [{ serveStdio }, { StdioWire }] = await Promise.all([
        import('@modelcontextprotocol/server/stdio'),
        import('../mcp/stdioTransport.js'),
      ]);
      const transport = new StdioWire(watch.stream, batchWritesPerTick(options.stdout ?? process.stdout));
      const handle = serveStdio(({ era }) => createMcp(era), { transport });
      // serveStdio owns the transport's onclose; ours runs after it.
      const theirs = transport.onclose;
      transport.onclose = () => {
        theirs?.();
        end();
      };
      return handle;
    })());
  stdin.once(
    'data',
    () =>
      void serve().catch((error: unknown) => {
        logger.error('MCP over stdio could not start', { error: (error as Error).message });
        end();
      }),
  );
  stdin.once('end', end);
  return {
    connected: stdioModulesFound(),
    untilRoleNeeded: () => untilRoleNeeded(watch),
    onEnd: (stop) => {
      if (ended) stop();
      else stops.push(stop);
    },
    close: async () => {
      await (await serving?.catch(() => null))?.close();
    },
  };
}

/** Over stdio, MCP is ready once its modules can be found (they load with stdin's first bytes). */
async function stdioModulesFound(): Promise<void> {
  import.meta.resolve('@modelcontextprotocol/server/stdio');
  import.meta.resolve('../mcp/index.js');
}

async function untilRoleNeeded(watch: StdinWatch): Promise<void> {
  const first = await watch.first(FIRST_MESSAGE_WAIT_MS);
  if (first.kind !== 'method' || first.method !== DISCOVER) return;
  if ((await watch.afterDiscover(AFTER_DISCOVER_WAIT_MS)) === 'ended') throw new ProbeEnded();
}
