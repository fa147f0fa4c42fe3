/**
 * The front role of a server process (SPEC §2, §9): another process of this
 * home owns the relay, so this one links to it and serves only its own MCP
 * (stdio, or `/mcp` on its own port) with its own flags. When the hub's
 * process exits, this process follows: it joins whichever process took over,
 * or takes over itself on the same relay port with the same credentials.
 */
import type { ServerConfig } from '../config.js';
import { startDemoServer, type DemoServer } from '../http/demo/demoServer.js';
import type { ServerUrls } from '../http/adminApi.js';
import { startPortServer, type PortServer } from '../http/portServer.js';
import { readHubFile } from '../http/hubFile.js';
import type { McpServerFactory } from '../http/mcpEndpoint.js';
import type { BoundAddress } from '../http/requestGuard.js';
import type { HubTiming } from '../hub/hub.js';
import { joinHub, type JoinableHubFile } from '../hubLink/discovery.js';
import { FollowingHub, type ResumableHub } from '../hubLink/followingHub.js';
import { HubFollower } from '../hubLink/hubFollower.js';
import { RemoteHub } from '../hubLink/remoteHub.js';
import type { Logger } from '../log.js';
import { loopbackOrigins } from '../relay/originPolicy.js';
import { startHubRole, type HubRole } from './hubRole.js';

/** Options of {@link startFollowerRole}. */
export interface FollowerRoleOptions {
  config: ServerConfig;
  /** `/mcp` of this process (HTTP mode), or null for stdio. */
  mcp: McpServerFactory | null;
  /** Where `/mcp` listens (HTTP mode). */
  bind: BoundAddress;
  /** The demo this process serves itself (the hub serves none), or null. */
  demo: DemoServer | null;
  logger: Logger;
  version: string;
  timing?: Partial<HubTiming>;
  demoRoot?: string;
}

/** A running front role. */
export interface FollowerRole {
  readonly hub: FollowingHub;
  readonly urls: ServerUrls;
  /** This process's own hub role once it took over, else null. */
  readonly ownHub: () => HubRole | null;
  /** A single-use pairing code from whichever hub this process reaches; null when none answers. */
  pairCode(): Promise<string | null>;
  close(): Promise<void>;
}

/** The origins this process's pages open the relay from. */
export function followerOrigins(config: ServerConfig, demo: DemoServer | null): string[] {
  return [...config.allowedOrigins, ...(demo ? loopbackOrigins(demo.bound.port) : [])];
}

/**
 * Serves as a front of the hub `hub.json` names. The link opens in the
 * background (the ready line does not wait for `ws`); MCP calls wait for it.
 */
export async function startFollowerRole(file: JoinableHubFile, options: FollowerRoleOptions): Promise<FollowerRole> {
  const { config, logger } = options;
  const hub = new FollowingHub({ logger: logger.child('follow') });
  const http = options.mcp ? await startMcpOnly(options, file) : null;
  let own: HubRole | null = null;
  let last = file;
  const relayOrigins = followerOrigins(config, options.demo);
  const follower = new HubFollower({
    hub,
    logger: logger.child('follow'),
    join: async () => {
      const next = await joinHub(config.home, { logger: logger.child('link'), relayOrigins });
      if (next) last = next.file;
      return next;
    },
    takeOver: async () => (own = await takeOver(options, last, http)).hub as ResumableHub,
  });
  follower.start();
  const demoUrl = options.demo?.url ?? file.demoUrl;
  const urls: ServerUrls = {
    ...(http ? { mcpUrl: http.mcpUrl } : {}),
    relayUrl: file.relayUrl,
    ...(demoUrl ? { demoUrl } : {}),
  };
  return {
    hub,
    urls,
    ownHub: () => own,
    pairCode: async () => {
      const current = await hub.whenReachable();
      if (own && current === own.hub) return own.pairing.issueCode(config.pairGrant).code;
      if (!(current instanceof RemoteHub)) return null;
      return current.pair(config.pairGrant).then(
        (issued) => issued.code,
        () => null,
      );
    },
    async close() {
      follower.stop();
      await follower.settled();
      await Promise.all([own?.close(), http?.close(), options.demo?.close()]);
    },
  };
}

/** `/mcp` on this process's own port; the hub's port when asked for it is taken, so an ephemeral one. */
async function startMcpOnly(options: FollowerRoleOptions, file: JoinableHubFile): Promise<PortServer> {
  const serve = (bind: BoundAddress) =>
    startPortServer(bind, {
      hub: null,
      logger: options.logger,
      bearerToken: options.config.bearerToken,
      mcp: options.mcp,
      relayOrigins: () => [],
      admin: null,
    });
  const hubPort = Number(new URL(file.relayUrl).port);
  if (options.bind.port !== hubPort) return serve(options.bind);
  const server = await serve({ host: options.bind.host, port: 0 });
  options.logger.warn('the hub holds the requested MCP port; /mcp listens on another', { port: server.bound.port });
  return server;
}

/**
 * Becomes the hub on the previous hub's relay port, with its origins, and
 * serves its demo page again when it had one (best effort). Rejects with
 * `EADDRINUSE` when another front won the port.
 */
async function takeOver(
  options: FollowerRoleOptions,
  previous: JoinableHubFile,
  http: PortServer | null,
): Promise<HubRole> {
  const fresher = readHubFile(options.config.home);
  const file = fresher && fresher.relayUrl === previous.relayUrl ? fresher : previous;
  const relay = new URL(file.relayUrl);
  const demoPort = !options.demo && file.demoUrl ? Number(new URL(file.demoUrl).port) : null;
  return startHubRole({
    config: options.config,
    bind: { host: relay.hostname.replace(/^\[|\]$/g, ''), port: Number(relay.port) },
    mcp: null,
    demo: demoPort === null ? null : { host: '127.0.0.1', port: demoPort },
    demoBestEffort: true,
    demoRoot: options.demoRoot,
    logger: options.logger,
    version: options.version,
    timing: options.timing,
    inheritedOrigins: [...(file.relayOrigins ?? []), ...followerOrigins(options.config, options.demo)],
    ...(http ? { mcpUrl: http.mcpUrl } : {}),
  });
}

/** Starts this process's own demo when it is asked for one and the hub serves none. */
export function ownDemo(
  demo: BoundAddress | null,
  hubDemoUrl: string | undefined,
  relayUrl: () => string,
  root?: string,
): Promise<DemoServer | null> {
  if (!demo || hubDemoUrl) return Promise.resolve(null);
  return startDemoServer(demo, { relayUrl, root });
}
