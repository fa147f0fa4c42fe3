/**
 * The hub role of a server process (SPEC §2, §9): pairing, the hub, the relay
 * port with `/relay`, `/front` (other server processes link here), `/admin/`
 * and, when this process serves MCP over HTTP on it, `/mcp`; optionally the
 * demo's own origin. Writes `hub.json` (mode 0600) and removes it on close.
 * The first process of a home takes this role; a front takes it over when the
 * hub's process exits.
 */
import { randomBytes } from 'node:crypto';
import type { Grant } from '../../protocol/index.js';
import type { ServerConfig } from '../config.js';
import type { DemoServer } from '../http/demo/demoServer.js';
import type { AdminContext, ServerUrls } from '../http/adminApi.js';
import { startPortServer, type PortServer } from '../http/portServer.js';
import { removeHubFile, writeHubFile, type HubFile } from '../http/hubFile.js';
import type { McpServerFactory } from '../http/mcpEndpoint.js';
import type { BoundAddress } from '../http/requestGuard.js';
import { Hub, type HubTiming } from '../hub/hub.js';
import { HubLinkServer } from '../hubLink/hubLinkServer.js';
import { createLinkUpgrade } from '../hubLink/linkUpgrade.js';
import type { Logger } from '../log.js';
import { Pairing } from '../pairing/pairing.js';
import { DEFAULT_RELAY_ORIGINS, loopbackOrigins, normalizeOrigin } from '../relay/originPolicy.js';

/** Options of {@link startHubRole}. */
export interface HubRoleOptions {
  config: ServerConfig;
  /** The relay port's address (port 0: ephemeral). */
  bind: BoundAddress;
  /** Serves `/mcp` on the relay port too (HTTP mode), or null. */
  mcp: McpServerFactory | null;
  /** The demo's address, or null. */
  demo: BoundAddress | null;
  /** Serve the hub even when the demo's port cannot be bound (a takeover re-serving the old demo). */
  demoBestEffort?: boolean;
  demoRoot?: string;
  logger: Logger;
  version: string;
  timing?: Partial<HubTiming>;
  /** Origins the previous hub admitted (a takeover keeps them, so open tabs reconnect). */
  inheritedOrigins?: readonly string[];
  /** This process's `/mcp` when it is served on another port (a front that took over). */
  mcpUrl?: string;
}

/** A running hub role. */
export interface HubRole {
  readonly hub: Hub;
  readonly pairing: Pairing;
  readonly front: PortServer;
  readonly demo: DemoServer | null;
  readonly urls: ServerUrls;
  close(): Promise<void>;
}

/** Binds the relay port, serves, and writes `hub.json`; rejects (closing what started) when a port is taken. */
export async function startHubRole(options: HubRoleOptions): Promise<HubRole> {
  const { config, logger, version } = options;
  const pairing = new Pairing({ home: config.home, logger: logger.child('pairing') });
  if (pairing.store.setAside) logger.warn('unreadable credentials file set aside; hosts must pair again');
  const hub = new Hub({
    auth: pairing,
    logger: logger.child('hub'),
    serverVersion: version,
    tradingEnabled: config.adapter.maxAccess === 'trade',
    timing: options.timing,
    limits: config.limits,
  });
  const origins = new Set([...DEFAULT_RELAY_ORIGINS, ...config.allowedOrigins, ...(options.inheritedOrigins ?? [])]);
  let urls: ServerUrls = { relayUrl: '' };
  let front: PortServer | null = null;
  const frontToken = randomBytes(24).toString('base64url');
  const startedAt = new Date().toISOString();
  const rewrite = () =>
    front &&
    writeHubFile(
      config.home,
      hubFile(options, startedAt, front, { admin: admin.token, front: frontToken }, urls, origins),
    );
  const links = new HubLinkServer({
    hub,
    logger: logger.child('front'),
    serverVersion: version,
    relayUrl: () => urls.relayUrl,
    pair: (grant: Grant) => pairing.issueCode(grant),
    addRelayOrigins: (list) => addOrigins(origins, list) && rewrite(),
  });
  const admin = adminContext(hub, pairing, logger, version, config, () => urls);
  front = await startPortServer(options.bind, {
    hub,
    logger,
    bearerToken: config.bearerToken,
    mcp: options.mcp,
    relayOrigins: () => origins,
    admin: () => admin,
    hubLink: createLinkUpgrade({
      token: frontToken,
      bound: () => front?.bound ?? options.bind,
      logger: logger.child('front'),
      accept: (socket) => links.accept(socket),
    }),
  });
  const demo = await startDemoOrClose(options, front);
  if (demo) addOrigins(origins, loopbackOrigins(demo.bound.port));
  urls = {
    ...(options.mcp ? { mcpUrl: front.mcpUrl } : options.mcpUrl ? { mcpUrl: options.mcpUrl } : {}),
    relayUrl: front.relayUrl,
    ...(demo ? { demoUrl: demo.url } : {}),
  };
  rewrite();
  const served = front;
  return {
    hub,
    pairing,
    front: served,
    demo,
    urls,
    async close() {
      hub.close();
      // Requests in flight just resolved as lost: let their outcomes reach the fronts before the links close.
      await new Promise((resolve) => setImmediate(resolve));
      links.close();
      await Promise.all([served.close(), demo?.close()]);
      removeHubFile(config.home, admin.token);
    },
  };
}

/** Adds normalized origins; true when one was new. */
function addOrigins(origins: Set<string>, list: readonly string[]): boolean {
  let added = false;
  for (const value of list) {
    const origin = normalizeOrigin(value);
    if (origin === null || origins.has(origin) || origins.size >= 256) continue;
    origins.add(origin);
    added = true;
  }
  return added;
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
  return {
    hub,
    pairing,
    logger: logger.child('admin'),
    token,
    version,
    defaultGrant: config.pairGrant,
    tradingEnabled: config.adapter.maxAccess === 'trade',
    urls,
  };
}

function hubFile(
  options: HubRoleOptions,
  startedAt: string,
  front: PortServer,
  tokens: { admin: string; front: string },
  urls: ServerUrls,
  origins: Set<string>,
): HubFile {
  return {
    version: 1,
    pid: process.pid,
    serverVersion: options.version,
    startedAt,
    adminUrl: `${front.origin}/admin`,
    adminToken: tokens.admin,
    ...urls,
    frontUrl: `${front.origin.replace(/^http/, 'ws')}/front`,
    frontToken: tokens.front,
    relayOrigins: [...origins],
  };
}

async function startDemoOrClose(options: HubRoleOptions, front: PortServer): Promise<DemoServer | null> {
  if (!options.demo) return null;
  try {
    const { startDemoServer } = await import('../http/demo/demoServer.js');
    return await startDemoServer(options.demo, { relayUrl: () => front.relayUrl, root: options.demoRoot });
  } catch (error) {
    if (options.demoBestEffort) {
      options.logger.warn('the demo port is taken; serving without the demo', { port: options.demo.port });
      return null;
    }
    await front.close();
    throw error;
  }
}
