/**
 * The hub role of a server process (SPEC §2, §9): pairing, the hub, the relay
 * port with `/relay`, `/front` (other server processes link here), `/admin/`
 * and, when this process serves MCP over HTTP on it, `/mcp`; optionally the
 * demo's own origin. Writes `hub.json` (mode 0600) and removes it on close.
 * The first process of a home takes this role; a front takes it over when the
 * hub's process exits.
 *
 * It opens in two steps (SPEC §12): {@link openHubRole} binds the ports,
 * issues the first pairing code and writes `hub.json` with none of the hub's
 * machinery loaded (no schema, no hub, no relay); {@link OpenHubRole.loaded}
 * loads and starts it (`hubMachinery.ts`) when it is first needed: the first
 * request or socket on the port (which waits for it), or the first call of
 * this process's MCP. A server nobody has used holds none of it.
 */
import { randomBytes } from 'node:crypto';
import type { ServerConfig } from '../config.js';
import type { DemoServer } from '../http/demo/demoServer.js';
import type { ServerUrls } from '../http/adminApi.js';
import { heldServer, type HeldServer } from '../http/heldServer.js';
import type { HubFile } from '../http/hubFile.js';
import { writeHubFile } from '../http/hubFilePath.js';
import { closeServer, listen, portUrls } from '../http/listen.js';
import type { McpServerFactory } from '../http/mcpEndpoint.js';
import type { PortServer } from '../http/portServer.js';
import type { BoundAddress } from '../http/requestGuard.js';
import type { Hub, HubTiming } from '../hub/hub.js';
import type { Logger } from '../log.js';
import type { Pairing } from '../pairing/pairing.js';
import { logBurns, PairingCodes } from '../pairing/pairingCodes.js';
import { DEFAULT_RELAY_ORIGINS, loopbackOrigins, normalizeOrigin } from '../relay/originPolicy.js';
import type { startMachinery } from './hubMachinery.js';

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
  /** Loads the machinery (default `hubMachinery.ts`; tests pass one that fails). */
  machinery?: () => Promise<{ startMachinery: typeof startMachinery }>;
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

/** A hub role whose ports are bound and whose machinery may still be loading. */
export interface OpenHubRole {
  readonly urls: ServerUrls;
  /** Issues a pairing code for `config.pairGrant`. */
  pairCode(): string;
  /** Loads and starts the hub's machinery (once; the first request on the port starts it too); resolves with {@link running}. */
  loaded(): Promise<HubRole>;
  /**
   * The role once its machinery runs, whoever started it; rejects, the ports
   * closed, when it cannot load. Never settles when the role closed first.
   */
  readonly running: Promise<HubRole>;
  close(): Promise<void>;
}

/** What `hubMachinery.ts` gets from the opened role. */
export interface OpenedParts {
  options: HubRoleOptions;
  codes: PairingCodes;
  origins: Set<string>;
  adminToken: string;
  held: HeldServer;
  demo: DemoServer | null;
  urls: ServerUrls;
  /** Writes `hub.json` again (the origins changed). */
  rewrite(): void;
}

/** Binds the relay port and the demo, writes `hub.json`, and resolves; the machinery loads with {@link OpenHubRole.loaded}. */
export async function openHubRole(options: HubRoleOptions): Promise<OpenHubRole> {
  const { config, logger } = options;
  const codes = new PairingCodes(undefined, undefined, logBurns(logger.child('pairing')));
  const origins = new Set([...DEFAULT_RELAY_ORIGINS, ...config.allowedOrigins, ...(options.inheritedOrigins ?? [])]);
  const tokens = { admin: randomBytes(24).toString('base64url'), front: randomBytes(24).toString('base64url') };
  const startedAt = new Date().toISOString();
  // Made before the port listens: a request may arrive while the demo starts.
  const loader = machineryLoader(options.machinery);
  const held = heldServer(() => void loader.load());
  await listen(held.http, options.bind);
  const bound: BoundAddress = { host: options.bind.host, port: (held.http.address() as { port: number }).port };
  const port = portUrls(bound);
  const demo = await startDemoOrClose(options, port.relayUrl, held);
  if (demo) addOrigins(origins, loopbackOrigins(demo.bound.port));
  const urls: ServerUrls = {
    ...(options.mcp ? { mcpUrl: port.mcpUrl } : options.mcpUrl ? { mcpUrl: options.mcpUrl } : {}),
    relayUrl: port.relayUrl,
    ...(demo ? { demoUrl: demo.url } : {}),
  };
  const rewrite = () => writeHubFile(config.home, hubFile(options, startedAt, port.origin, tokens, urls, origins));
  rewrite();
  loader.opened({ options, codes, origins, adminToken: tokens.admin, held, demo, urls, rewrite }, tokens.front);
  return {
    urls,
    pairCode: () => codes.issue(config.pairGrant).code,
    loaded: () => loader.load(),
    running: loader.running,
    close: () => loader.close(),
  };
}

/** Loads the machinery once, when asked and the role is open; closes what was opened when it cannot load or the role closes first. */
function machineryLoader(machinery: HubRoleOptions['machinery'] = () => import('./hubMachinery.js')) {
  let parts: { opened: OpenedParts; frontToken: string } | null = null;
  let wanted = false;
  let closed = false;
  let loading: Promise<HubRole> | null = null;
  let partsClosed: Promise<void> | null = null;
  let closing: Promise<void> | null = null;
  let settle: { resolve(role: HubRole): void; reject(error: unknown): void } = { resolve() {}, reject() {} };
  const running = new Promise<HubRole>((resolve, reject) => (settle = { resolve, reject }));
  running.catch(() => undefined);
  const closeParts = (opened: OpenedParts) => (partsClosed ??= closeOpened(opened));
  const begin = () => {
    if (!wanted || closed || loading || !parts) return;
    const { opened, frontToken } = parts;
    loading = machinery()
      .then(({ startMachinery }) => startMachinery(opened, frontToken))
      .catch(async (error: unknown) => {
        opened.held.fail();
        await closeParts(opened);
        throw error;
      });
    loading.then(settle.resolve, settle.reject);
  };
  return {
    running,
    load(): Promise<HubRole> {
      wanted = true;
      begin();
      return running;
    },
    /** The role is open: a load asked for meanwhile begins now. */
    opened(opened: OpenedParts, frontToken: string): void {
      parts = { opened, frontToken };
      begin();
    },
    close(): Promise<void> {
      return (closing ??= (async () => {
        closed = true;
        const role = loading ? await loading.catch(() => null) : null;
        if (role) return role.close();
        if (!parts) return;
        parts.opened.held.fail();
        await closeParts(parts.opened);
      })());
    },
  };
}

/** Opens the role and loads its machinery: the role a front takes over with. */
export async function startHubRole(options: HubRoleOptions): Promise<HubRole> {
  return (await openHubRole(options)).loaded();
}

/** Closes what {@link openHubRole} opened when the machinery never ran. */
async function closeOpened(parts: OpenedParts): Promise<void> {
  await Promise.all([closeServer(parts.held.http), parts.demo?.close()]);
  const { removeHubFile } = await import('../http/hubFile.js');
  removeHubFile(parts.options.config.home, parts.adminToken);
}

/** Adds normalized origins; true when one was new. */
export function addOrigins(origins: Set<string>, list: readonly string[]): boolean {
  let added = false;
  for (const value of list) {
    const origin = normalizeOrigin(value);
    if (origin === null || origins.has(origin) || origins.size >= 256) continue;
    origins.add(origin);
    added = true;
  }
  return added;
}

function hubFile(
  options: HubRoleOptions,
  startedAt: string,
  origin: string,
  tokens: { admin: string; front: string },
  urls: ServerUrls,
  origins: Set<string>,
): HubFile {
  return {
    version: 1,
    pid: process.pid,
    serverVersion: options.version,
    startedAt,
    adminUrl: `${origin}/admin`,
    adminToken: tokens.admin,
    ...urls,
    frontUrl: `${origin.replace(/^http/, 'ws')}/front`,
    frontToken: tokens.front,
    relayOrigins: [...origins],
  };
}

async function startDemoOrClose(
  options: HubRoleOptions,
  relayUrl: string,
  held: HeldServer,
): Promise<DemoServer | null> {
  if (!options.demo) return null;
  try {
    const { startDemoServer } = await import('../http/demo/demoServer.js');
    return await startDemoServer(options.demo, { relayUrl: () => relayUrl, root: options.demoRoot });
  } catch (error) {
    if (options.demoBestEffort) {
      options.logger.warn('the demo port is taken; serving without the demo', { port: options.demo.port });
      return null;
    }
    await closeServer(held.http);
    throw error;
  }
}
