/**
 * The `HubPort` of a cluster node (SPEC §14). The MCP front calls it exactly
 * as it calls a single hub; underneath, every call is made on behalf of the
 * principal of the request being served ({@link currentPrincipal}) and sees
 * only that tenant's sessions. A session whose socket this node holds is
 * served by the tenant's local hub; any other is found in Redis and its
 * request forwarded to the node holding it, the answer coming back here. A
 * tab that is reconnecting (to any node) is waited for, as on one machine.
 */
import { sessionContextUri, type CatalogResource, type Operation, type SessionSummary } from '../../protocol/index.js';
import type { ClusterEvent, ClusterSessionRecord, InboxMessage } from '../../protocol/wire/clusterBus.js';
import { catalogResource, indexCatalog } from '../hub/rules/catalogIndex.js';
import type { Hub } from '../hub/hub.js';
import type {
  AttachmentHandle,
  AttachmentInfo,
  HubEvents,
  HubOutcome,
  HubPort,
  HubRequestOptions,
} from '../hub/hubPort.js';
import { cancelledOutcome } from '../hub/rules/lostOutcomes.js';
import type { Logger } from '../log.js';
import type { ClusterAttachments, HomeAttachment } from './clusterAttachments.js';
import type { ClusterBus } from './clusterBus.js';
import { sessionClosed, sessionNotFound, stillReconnecting, storeUnavailable } from './clusterOutcomes.js';
import type { ClusterStore } from './clusterStore.js';
import type { Forwarder } from './forwarder.js';
import { currentPrincipal } from './principalContext.js';
import type { RedisClients } from './redisClients.js';
import { RouteCache } from './routeCache.js';
import type { TenantHubs } from './tenantHubs.js';

type InboxAttachment = Extract<InboxMessage, { t: 'request' }>['attachment'];

interface Listener {
  readonly principal: string | null;
  readonly event: keyof HubEvents;
  readonly fn: (...args: never[]) => void;
}

/** What the cluster hub works with. */
export interface ClusterHubDeps {
  tenants: TenantHubs;
  redis: RedisClients;
  bus: ClusterBus;
  store: ClusterStore;
  forwarder: Forwarder;
  attachments: ClusterAttachments;
  logger: Logger;
  /** How long a request waits for a reconnecting tab (SPEC §9: about 5 s). */
  reconnectWaitMs: number;
  /** How long a route to another node is used without reading it again. */
  routeMaxAgeMs: number;
  now?: () => number;
}

/** The longest pause between two looks at a session that is not held anywhere yet. */
const RECHECK_MS = 200;

/** A cluster node's hub port. */
export class ClusterHub implements HubPort {
  private readonly listeners = new Set<Listener>();
  private readonly waiters = new Set<() => void>();
  private readonly now: () => number;
  private readonly routes: RouteCache;

  constructor(private readonly deps: ClusterHubDeps) {
    this.now = deps.now ?? Date.now;
    this.routes = new RouteCache(deps.routeMaxAgeMs, this.now);
  }

  /** Redis went away: every route is read again once it is back. */
  forgetRoutes(): void {
    this.routes.forget(null);
  }

  /** Home attachments, for the health endpoint. */
  get attachmentCount(): number {
    return this.deps.attachments.size;
  }

  async attach(info: AttachmentInfo): Promise<AttachmentHandle> {
    const principal = currentPrincipal();
    if (principal === null) throw new Error('cluster attach outside an authenticated request');
    return this.deps.attachments.attach(principal, info);
  }

  /**
   * Registers an attachment of the current principal under a kept id and
   * namespace (a stateless client's handle, presented to any node), still
   * detached from the hosts the person detached it from on any node.
   */
  async resume(kept: AttachmentHandle, info: AttachmentInfo): Promise<AttachmentHandle | null> {
    const principal = currentPrincipal();
    if (principal === null) throw new Error('cluster resume outside an authenticated request');
    return this.deps.attachments.resume(principal, kept, info);
  }

  async detach(attachmentId: string): Promise<void> {
    await this.deps.attachments.detach(attachmentId);
  }

  async listSessions(): Promise<SessionSummary[]> {
    const principal = currentPrincipal();
    if (principal === null) return [];
    // Redis away: what this node holds is all it can vouch for.
    if (!this.deps.redis.ready()) return (await this.deps.tenants.peek(principal)?.listSessions()) ?? [];
    const [sessions, attachments] = await Promise.all([
      this.deps.store.sessionsOf(principal),
      this.deps.store.attachmentSummaries(principal),
    ]);
    // As on one machine: a session lists the attachments its host was not detached from (SPEC §2).
    const usableBy = (hostId: string) => attachments.filter((a) => !a.detached.includes(hostId)).map((a) => a.summary);
    return sessions.map(({ record, owned }) => ({
      sessionId: record.sessionId,
      title: record.info.title,
      origin: record.origin,
      hostKind: record.hostKind,
      environment: record.info.environment ?? null,
      grant: record.info.grant ?? null,
      connected: record.connected && owned,
      openedAt: record.openedAt,
      contextUri: sessionContextUri(record.sessionId),
      attachments: usableBy(record.hostId),
    }));
  }

  async catalog(maxBytes: number): Promise<CatalogResource> {
    const principal = currentPrincipal();
    if (principal === null) return catalogResource([], maxBytes);
    const local = this.deps.tenants.peek(principal);
    if (!this.deps.redis.ready()) return local ? local.catalog(maxBytes) : catalogResource([], maxBytes);
    const sessions = await this.deps.store.sessionsOf(principal);
    const connected = sessions.filter((s) => s.owned && s.record.connected).map((s) => s.record.sessionId);
    const vocabularies = (await this.deps.store.catalogs(connected)).map((c) => indexCatalog(c, Infinity));
    return catalogResource(
      vocabularies.filter((v) => v !== null),
      maxBytes,
    );
  }

  async request(
    attachmentId: string,
    sessionId: string,
    op: Operation,
    options: HubRequestOptions,
  ): Promise<HubOutcome> {
    const principal = currentPrincipal();
    const attachment = this.deps.attachments.get(attachmentId);
    if (principal === null) return sessionNotFound();
    // Another principal's connection: it learns nothing of the session.
    if (attachment && attachment.principal !== principal) return sessionNotFound();
    const hub = this.deps.tenants.get(principal);
    if (options.signal?.aborted) return cancelledOutcome(null);
    // Not attached (or ended by the person): the hub says which.
    if (!attachment || !hub.attachments.get(attachmentId)) return hub.request(attachmentId, sessionId, op, options);
    if (hub.sessions.get(sessionId)?.conn) return hub.request(attachmentId, sessionId, op, options);
    return this.routed(attachment, hub, sessionId, op, options);
  }

  on<E extends keyof HubEvents>(event: E, listener: HubEvents[E]): () => void {
    const entry: Listener = { principal: currentPrincipal(), event, fn: listener as (...args: never[]) => void };
    this.listeners.add(entry);
    return () => this.listeners.delete(entry);
  }

  /** A cluster event (this node's own included). */
  event(event: ClusterEvent): void {
    switch (event.t) {
      case 'sessions':
        this.routes.forget(event.sessionId, event.principal);
        for (const wake of [...this.waiters]) wake();
        return this.emitTo(
          event.principal,
          event.sessionId === null ? 'sessionsChanged' : 'sessionUpdated',
          event.sessionId === null ? [] : [event.sessionId],
        );
      case 'resync':
        this.routes.forget(null);
        for (const wake of [...this.waiters]) wake();
        return this.emitTo(null, 'sessionsChanged', []);
      case 'revoked':
        this.deps.tenants.peek(event.principal)?.revokeHost(event.hostId);
        return;
      case 'attached':
      case 'detached':
        return this.deps.attachments.event(event);
      case 'hostDetached':
        this.deps.attachments.event(event);
        return this.emitTo(event.principal, 'attachmentDetached', [event.attachmentId, event.hostId]);
    }
  }

  /** Calls the listeners of `event` registered for `principal` (every listener when null). */
  private emitTo(principal: string | null, event: keyof HubEvents, args: string[]): void {
    for (const l of [...this.listeners]) {
      if (l.event !== event || (principal !== null && l.principal !== null && l.principal !== principal)) continue;
      try {
        (l.fn as (...a: string[]) => void)(...args);
      } catch {
        // A front's listener failing must not stop the others.
      }
    }
  }

  private async routed(
    attachment: HomeAttachment,
    hub: Hub,
    sessionId: string,
    op: Operation,
    options: HubRequestOptions,
  ): Promise<HubOutcome> {
    const started = this.now();
    const waitUntil = started + this.deps.reconnectWaitMs;
    const known = this.routes.readsOf(sessionId);
    // Before the session's vocabulary is known, any call may mutate.
    let mutation = known ? mutates(op, known) : op.kind === 'call' || op.kind === 'batch';
    for (;;) {
      if (!this.deps.redis.ready()) return storeUnavailable(mutation);
      const found = await this.route(sessionId, attachment.principal, mutation);
      if ('ok' in found) return found;
      const { record, owner, reads } = found;
      mutation = mutates(op, reads);
      if (owner === this.deps.bus.nodeId && hub.sessions.get(sessionId)?.conn) {
        return hub.request(attachment.handle.attachmentId, sessionId, op, options);
      }
      if (owner !== null && owner !== this.deps.bus.nodeId) {
        const forwarded = await this.deps.forwarder.forward(
          owner,
          {
            t: 'request',
            principal: attachment.principal,
            sessionId,
            attachment: this.forwardedAttachment(attachment.handle),
            info: attachment.info,
            op,
            adapter: options.adapter,
            limits: options.limits,
            deadlineMs: Math.max(1, options.deadlineMs - (this.now() - started)),
            progress: options.onProgress !== undefined,
          },
          { reads, environment: record.info.environment ?? null },
          options,
        );
        if (forwarded.kind === 'outcome') return forwarded.outcome;
        this.routes.forget(sessionId);
      }
      if (options.signal?.aborted) return cancelledOutcome(null);
      const left = waitUntil - this.now();
      if (left <= 0) return stillReconnecting(mutation);
      await this.changeOrTimeout(Math.min(left, RECHECK_MS));
    }
  }

  /** The attachment a forwarded request names, with the hosts the person detached it from. */
  private forwardedAttachment(handle: AttachmentHandle): InboxAttachment {
    const detachedHosts = this.deps.attachments.detachedHostsOf(handle.attachmentId);
    return { ...handle, ...(detachedHosts.length > 0 ? { detachedHosts } : {}) };
  }

  /** Where a session of `principal` is: from the route cache, or read from Redis (and cached when held elsewhere). */
  private async route(
    sessionId: string,
    principal: string,
    mutation: boolean,
  ): Promise<HubOutcome | { record: ClusterSessionRecord; owner: string | null; reads: ReadonlySet<string> }> {
    const cached = this.routes.get(sessionId);
    if (cached) return cached.record.principal === principal ? cached : sessionNotFound();
    const route = await this.deps.store.route(sessionId).catch(() => null);
    if (route === null) return storeUnavailable(mutation);
    if (route.kind === 'unknown') return sessionNotFound();
    if (route.kind === 'closed') return route.principal === principal ? sessionClosed() : sessionNotFound();
    const { record, owner } = route;
    if (record.principal !== principal) return sessionNotFound();
    this.routes.learnReads(sessionId, new Set(record.reads));
    if (owner !== null && owner !== this.deps.bus.nodeId && record.connected) return this.routes.set(record, owner);
    return { record, owner, reads: new Set(record.reads) };
  }

  private changeOrTimeout(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        this.waiters.delete(done);
        resolve();
      };
      const timer = setTimeout(done, ms);
      this.waiters.add(done);
    });
  }
}

/** True when the operation holds a call the session does not know as a read. */
function mutates(op: Operation, reads: ReadonlySet<string>): boolean {
  if (op.kind === 'call') return !reads.has(op.call.controlId);
  if (op.kind === 'batch') return op.calls.some((c) => !reads.has(c.controlId));
  return false;
}
