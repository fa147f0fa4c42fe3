/**
 * One node of a cluster (SPEC §14): `tradescript-mcp serve --http HOST:PORT
 * --cluster redis://… --token-file FILE`. It serves `/mcp` and `/relay` like a
 * single server, holds the sockets of the tabs that connected to it (in one
 * hub per tenant), keeps their sessions and leases in Redis, forwards requests
 * for sessions held elsewhere, and serves those forwarded to it. It needs no
 * home directory: credentials and pairing codes are in Redis.
 */
import { randomBytes } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { ServerConfig } from '../config.js';
import { packageVersion } from '../http/demo/packageRoot.js';
import type { ServerUrls } from '../http/adminApi.js';
import { closeServer, listen } from '../http/portServer.js';
import { McpHttpEndpoint } from '../http/mcpEndpoint.js';
import { displayHost, type BoundAddress } from '../http/requestGuard.js';
import { DEFAULT_HUB_TIMING, type HubTiming } from '../hub/hub.js';
import type { HubPort } from '../hub/hubPort.js';
import { createLogger, type Logger } from '../log.js';
import { DEFAULT_RELAY_ORIGINS, originAllowlist } from '../relay/originPolicy.js';
import { createRelayUpgrade } from '../relay/upgrade.js';
import type { HandleKey } from '../mcp/attachments/attachmentHandles.js';
import type { HandleKeySource } from '../mcp/attachments/attachmentKey.js';
import { ClusterAttachments } from './clusterAttachments.js';
import { ClusterBus } from './clusterBus.js';
import { clusterHostAllowed, routeCluster, type NodeHealth } from './clusterHttp.js';
import { ClusterHub } from './clusterHub.js';
import { ClusterPairing } from './clusterPairing.js';
import { ClusterStore } from './clusterStore.js';
import { Forwarder } from './forwarder.js';
import { OwnerService } from './ownerService.js';
import { currentPrincipal } from './principalContext.js';
import { tokenFileResolver } from './principals.js';
import { DEFAULT_REDIS_TIMING, openRedis, type RedisTiming } from './redisClients.js';
import { SessionGate } from './sessionGate.js';
import { SessionMirror } from './sessionMirror.js';
import { TenantHubs } from './tenantHubs.js';

/** What `--cluster` and its companions say. */
export interface ClusterOptions {
  /** `redis://[user:pass@]host:port[/db]` (or `rediss://`). */
  redisUrl: string;
  /** The token file (token → principal). */
  tokenFile: string;
  /** The address clients and browsers use, when a proxy stands in front (`https://bridge.example`). */
  publicUrl: string | null;
}

/** Cluster timings; tests shorten them. */
export interface ClusterTiming extends RedisTiming {
  /** Owner and membership leases live this long unless renewed. */
  leaseMs: number;
  /** How often requests in flight to other nodes check those nodes are still there. */
  watchMs: number;
  /** How long the node holding a kept id has to answer a hand-over. */
  releaseWaitMs: number;
}

/** Defaults: leases of 5 s renewed every 1.6 s; owners of requests in flight checked every 250 ms. */
export const DEFAULT_CLUSTER_TIMING: ClusterTiming = {
  ...DEFAULT_REDIS_TIMING,
  leaseMs: 5_000,
  watchMs: 250,
  releaseWaitMs: 1_000,
};

/** Options of {@link startClusterNode}. */
export interface ClusterNodeOptions {
  bind: BoundAddress;
  cluster: ClusterOptions;
  logger?: Logger;
  serverVersion?: string;
  timing?: Partial<HubTiming>;
  clusterTiming?: Partial<ClusterTiming>;
}

/** A running node. */
export interface ClusterNode {
  readonly nodeId: string;
  readonly urls: ServerUrls & { nodeId: string; healthUrl: string; readyUrl: string; publicUrl?: string };
  readonly hub: HubPort & Pick<ClusterHub, 'resume'>;
  role(): 'hub' | 'front';
  readonly mcpReady: Promise<void>;
  readonly closed: Promise<void>;
  health(): NodeHealth;
  /** The secret (hex) every node signs stateless attachment handles with, shared through Redis. */
  handleKey(): Promise<string>;
  close(): Promise<void>;
}

/** Starts one node; resolves once it listens (Redis may still be connecting: `/readyz` says when it is). */
export async function startClusterNode(config: ServerConfig, options: ClusterNodeOptions): Promise<ClusterNode> {
  const logger = (options.logger ?? createLogger(config.logLevel)).child('cluster');
  const version = options.serverVersion ?? packageVersion();
  const timing = { ...DEFAULT_CLUSTER_TIMING, ...options.clusterTiming };
  const hubTiming: HubTiming = { ...DEFAULT_HUB_TIMING, ...options.timing };
  const nodeId = `n_${randomBytes(9).toString('base64url')}`;
  const principals = tokenFileResolver(options.cluster.tokenFile, {
    onReloaded: (count) => logger.info('token file reloaded', { tokens: count }),
    onReloadFailed: (message) => logger.warn('token file change ignored', { reason: message }),
  });
  const redis = await openRedis(options.cluster.redisUrl, `tradescript-${nodeId}`, logger.child('redis'), timing);
  const bus = new ClusterBus(redis, nodeId, logger.child('bus'));
  const store = new ClusterStore(() => redis.cmd);
  const pairing = new ClusterPairing(() => redis.cmd, logger.child('pairing'));
  const forwarder = new Forwarder(bus, { watchMs: timing.watchMs, deadlineGraceMs: hubTiming.deadlineGraceMs + 1_500 });
  const offs = new Map<string, Array<() => void>>();
  // Filled in below; the tenants' hooks run only once sockets or attachments arrive.
  const late = {} as { mirror: SessionMirror; attachments: ClusterAttachments };
  const tenants = new TenantHubs(
    {
      auth: pairing,
      logger: logger.child('tenant'),
      serverVersion: version,
      tradingEnabled: config.adapter.maxAccess === 'trade',
      timing: hubTiming,
      limits: config.limits,
    },
    {
      created: (principal, hub) => {
        offs.set(principal, [
          ...late.mirror.track(principal, hub),
          hub.on('attachmentDetached', (id, hostId) => late.attachments.hostDetachedHere(principal, id, hostId)),
        ]);
        void late.attachments.loadMirrors(principal, hub).catch(() => undefined);
      },
      dropped: (principal) => {
        for (const off of offs.get(principal) ?? []) off();
        offs.delete(principal);
      },
    },
  );
  const mirror = new SessionMirror(
    redis,
    bus,
    tenants,
    {
      leaseMs: timing.leaseMs,
      renewMs: Math.max(50, Math.floor(timing.leaseMs / 3)),
      recordTtlMs: hubTiming.disconnectGraceMs + 60_000,
      tombstoneMs: 24 * 60 * 60_000,
    },
    logger.child('sessions'),
  );
  late.mirror = mirror;
  const gate = new SessionGate(tenants, redis, bus, timing, logger.child('relay'));
  const attachments = new ClusterAttachments({ tenants, redis, bus, store, logger: logger.child('attachments') });
  late.attachments = attachments;
  const clusterHub = new ClusterHub({
    tenants,
    redis,
    bus,
    store,
    forwarder,
    attachments,
    logger,
    reconnectWaitMs: hubTiming.reconnectWaitMs,
    routeMaxAgeMs: timing.leaseMs,
  });
  const handleKey = sharedHandleKey(store);
  const owner = new OwnerService(
    bus,
    mirror,
    tenants,
    attachments,
    gate.claiming,
    logger.child('owner'),
    Math.floor(timing.releaseWaitMs / 2),
  );

  bus.onInbox((message) => {
    switch (message.t) {
      case 'request':
        return void owner.request(message).catch(() => logger.warn('forwarded request failed'));
      case 'cancel':
        return owner.cancel(message);
      case 'release':
        return void owner.release(message).catch(() => undefined);
      case 'released':
        return gate.released(message);
      default:
        return forwarder.receive(message);
    }
  });
  bus.onEvent((event) => clusterHub.event(event));
  const startedAt = Date.now();
  let mcpUrl = '';
  const nodeRecord = () => ({
    nodeId,
    url: mcpUrl,
    pid: process.pid,
    startedAt: new Date(startedAt).toISOString(),
    version,
  });
  let member = false;
  const renewMembership = async () => {
    if (!redis.ready()) return void (member = false);
    await store.renewMembership(nodeRecord(), timing.leaseMs).then(
      () => void (member = true),
      () => void (member = false),
    );
  };
  let everReady = false;
  redis.onReady(() => {
    void renewMembership();
    void handleKey.load().catch(() => undefined);
    if (everReady) {
      mirror.resync();
      void attachments.resync().catch(() => undefined);
      void bus.broadcast({ t: 'resync', from: nodeId });
    }
    everReady = true;
  });
  redis.onDown(() => {
    member = false;
    clusterHub.forgetRoutes();
    forwarder.loseAll('store');
  });
  await bus.start().catch(() => undefined);
  mirror.start();
  const housekeeping = setInterval(
    () => {
      void renewMembership();
      tenants.prune((principal) => attachments.hasHome(principal));
    },
    Math.max(50, Math.floor(timing.leaseMs / 3)),
  );
  housekeeping.unref();
  const sweeping = setInterval(() => {
    if (redis.ready()) void attachments.sweepMirrors().catch(() => undefined);
  }, timing.leaseMs);
  sweeping.unref();

  const endpoint = new McpHttpEndpoint(
    async () => {
      const { createHttpFront } = await import('../mcp/index.js');
      // Every node signs and checks stateless handles with the one key in Redis, for the request's principal.
      return createHttpFront({ hub: clusterHub, config, logger, serverVersion: version, keySource: handleKey.source });
    },
    logger.child('http'),
    undefined,
    () => currentPrincipal() ?? '',
  );
  const bound: BoundAddress = { ...options.bind };
  const publicHosts = publicHostsOf(options.cluster.publicUrl);
  const relay = createRelayUpgrade({
    hub: gate,
    logger: logger.child('relay'),
    originAllowed: originAllowlist(() => [...DEFAULT_RELAY_ORIGINS, ...config.allowedOrigins]),
    bound: () => bound,
    bearerToken: null,
    principalOf: (token) => principals.principalOf(token),
    hostAllowed: (host) => clusterHostAllowed(host, bound, publicHosts),
  });
  const health = (): NodeHealth => {
    let sockets = 0;
    let sessions = 0;
    for (const [, hub] of tenants.entries()) {
      const s = hub.status();
      sockets += s.sockets;
      sessions += s.connectedSessions;
    }
    return {
      nodeId,
      version,
      uptimeS: Math.round((Date.now() - startedAt) / 1000),
      redis: redis.ready() ? 'ready' : 'unavailable',
      ready: redis.ready() && member && handleKey.loaded(),
      sockets,
      sessions,
      attachments: clusterHub.attachmentCount,
      forwardsInFlight: forwarder.size,
      servedForOthers: owner.size,
    };
  };
  const revoke = async (principal: string, target: { hostId: string } | { sessionId: string }) => {
    const hostId = 'hostId' in target ? target.hostId : await hostOfSession(store, principal, target.sessionId);
    if (hostId === null || !(await pairing.revoke(principal, hostId))) return null;
    await bus.broadcast({ t: 'revoked', from: nodeId, principal, hostId });
    tenants.peek(principal)?.revokeHost(hostId);
    return hostId;
  };
  const routes = { bound: () => bound, publicHosts, principals, endpoint, pairing, health, revoke, logger };
  const http = createServer((req, res) => {
    routeCluster(routes, req, res).catch(() => {
      if (!res.headersSent) res.writeHead(500).end();
      else res.end();
    });
  });
  http.on('upgrade', (req, socket, head) => relay.handle(req, socket, head));
  await listen(http, options.bind);
  bound.port = (http.address() as AddressInfo).port;
  const origin = `http://${displayHost(bound.host)}:${bound.port}`;
  mcpUrl = `${origin}/mcp`;
  const urls = {
    nodeId,
    mcpUrl: `${origin}/mcp`,
    relayUrl: `${origin.replace(/^http/, 'ws')}/relay`,
    healthUrl: `${origin}/healthz`,
    readyUrl: `${origin}/readyz`,
    ...(options.cluster.publicUrl ? { publicUrl: options.cluster.publicUrl } : {}),
  };
  let resolveClosed = () => {};
  const closed = new Promise<void>((resolve) => (resolveClosed = resolve));
  let closing: Promise<void> | null = null;
  const close = () =>
    (closing ??= (async () => {
      clearInterval(housekeeping);
      clearInterval(sweeping);
      mirror.stop();
      forwarder.close();
      tenants.close();
      relay.close();
      await endpoint.close();
      await closeServer(http);
      await store.leave(nodeId).catch(() => undefined);
      await redis.close();
      principals.close();
      logger.info('stopped');
      resolveClosed();
    })());
  logger.info('node started', { nodeId });
  return {
    nodeId,
    urls,
    hub: clusterHub,
    role: () => 'hub',
    mcpReady: Promise.all([import('../mcp/index.js'), endpoint.warm(), relay.warm()]).then(() => undefined),
    closed,
    health,
    handleKey: async () => (await handleKey.source()).secret.toString('hex'),
    close,
  };
}

/** The cluster's one handle key (SPEC §13, §14), read from Redis once (made there by the first node to ask). */
function sharedHandleKey(store: ClusterStore): {
  source: HandleKeySource;
  load: () => Promise<HandleKey>;
  loaded: () => boolean;
} {
  let key: HandleKey | null = null;
  let loading: Promise<HandleKey> | null = null;
  const load = () =>
    (loading ??= store
      .handleKey(() => randomBytes(32).toString('hex'))
      .then((hex) => (key = { secret: Buffer.from(hex, 'hex') }))
      .finally(() => (loading = null)));
  return { source: () => (key ? Promise.resolve(key) : load()), load, loaded: () => key !== null };
}

function publicHostsOf(publicUrl: string | null): string[] {
  if (publicUrl === null) return [];
  const url = new URL(publicUrl);
  return [url.host.toLowerCase()];
}

async function hostOfSession(store: ClusterStore, principal: string, sessionId: string): Promise<string | null> {
  const route = await store.route(sessionId);
  return route.kind === 'live' && route.record.principal === principal ? route.record.hostId : null;
}
