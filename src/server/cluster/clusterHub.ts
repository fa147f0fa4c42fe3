/**
 * The `HubPort` of a cluster node (SPEC §14). The MCP front calls it exactly
 * as it calls a single hub; underneath, every call is made on behalf of the
 * principal of the request being served ({@link currentPrincipal}) and sees
 * only that tenant's sessions. A session whose socket this node holds is
 * served by the tenant's local hub; any other is found in Redis and its
 * request forwarded to the node holding it, the answer coming back here. A
 * tab that is reconnecting (to any node) is waited for, as on one machine.
 */
import { sessionContextUri, type CatalogDocument, type Operation, type SessionSummary } from '../../protocol/index.js';
import type { ClusterEvent, ClusterSessionRecord } from '../../protocol/clusterBus.js';
import type { Hub } from '../hub/hub.js';
import type {
  AttachmentHandle,
  AttachmentInfo,
  HubEvents,
  HubOutcome,
  HubPort,
  HubRequestOptions,
} from '../hub/hubPort.js';
import { cancelledOutcome } from '../hub/lostOutcomes.js';
import type { Logger } from '../log.js';
import type { ClusterBus } from './clusterBus.js';
import { sessionClosed, sessionNotFound, stillReconnecting, storeUnavailable } from './clusterOutcomes.js';
import type { ClusterStore } from './clusterStore.js';
import type { Forwarder } from './forwarder.js';
import { currentPrincipal } from './principalContext.js';
import type { RedisClients } from './redisClients.js';
import { RouteCache } from './routeCache.js';
import type { TenantHubs } from './tenantHubs.js';

/** An attachment whose MCP client talks to this node. */
interface HomeAttachment {
  readonly principal: string;
  readonly handle: AttachmentHandle;
  readonly info: AttachmentInfo;
}

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
  private readonly home = new Map<string, HomeAttachment>();
  private readonly listeners = new Set<Listener>();
  private readonly waiters = new Set<() => void>();
  /** Attachments being ended because another node said so (not announced again). */
  private readonly relaying = new Set<string>();
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

  /** True when `principal` has attachments whose clients talk to this node. */
  hasHomeAttachments(principal: string): boolean {
    for (const a of this.home.values()) if (a.principal === principal) return true;
    return false;
  }

  /** Home attachments, for the health endpoint. */
  get attachmentCount(): number {
    return this.home.size;
  }

  async attach(info: AttachmentInfo): Promise<AttachmentHandle> {
    const principal = currentPrincipal();
    if (principal === null) throw new Error('cluster attach outside an authenticated request');
    const hub = this.deps.tenants.get(principal);
    const handle = await hub.attach(info);
    await this.registerHome(principal, hub, handle, info);
    return handle;
  }

  private async registerHome(
    principal: string,
    hub: Hub,
    handle: AttachmentHandle,
    info: AttachmentInfo,
  ): Promise<void> {
    this.home.set(handle.attachmentId, { principal, handle, info });
    const summary = hub.attachments.get(handle.attachmentId)?.summary;
    if (summary) {
      const record = { summary, namespace: handle.namespace, node: this.deps.bus.nodeId };
      await this.deps.store.addAttachment(principal, record).catch(() => undefined);
    }
    void this.deps.bus.broadcast({ t: 'attached', from: this.deps.bus.nodeId, principal, attachment: handle, info });
  }

  /**
   * Registers an attachment of the current principal under a kept id and
   * namespace (a stateless client's handle, presented to any node). Null when
   * the person ended it, on any node.
   */
  async resume(kept: AttachmentHandle, info: AttachmentInfo): Promise<AttachmentHandle | null> {
    const principal = currentPrincipal();
    if (principal === null) throw new Error('cluster resume outside an authenticated request');
    const existing = this.home.get(kept.attachmentId);
    if (existing) {
      const live = this.deps.tenants.peek(principal)?.attachments.get(kept.attachmentId);
      return existing.principal === principal && live ? existing.handle : null;
    }
    if (this.deps.redis.ready() && (await this.deps.store.endedByPerson(kept.attachmentId))) return null;
    const hub = this.deps.tenants.get(principal);
    const handle = hub.resume(kept, info) ?? (hub.attachments.get(kept.attachmentId) ? kept : null);
    if (handle === null) return null;
    await this.registerHome(principal, hub, handle, info);
    return handle;
  }

  async detach(attachmentId: string): Promise<void> {
    const a = this.home.get(attachmentId);
    if (!a) return;
    this.home.delete(attachmentId);
    await this.deps.tenants.peek(a.principal)?.detach(attachmentId);
    await this.deps.store.removeAttachment(a.principal, attachmentId).catch(() => undefined);
    const { bus } = this.deps;
    void bus.broadcast({ t: 'detached', from: bus.nodeId, principal: a.principal, attachmentId, byPerson: false });
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
      attachments,
    }));
  }

  async catalog(): Promise<CatalogDocument> {
    const principal = currentPrincipal();
    const empty: CatalogDocument = { controls: [], channels: [] };
    if (principal === null) return empty;
    if (!this.deps.redis.ready()) return (await this.deps.tenants.peek(principal)?.catalog()) ?? empty;
    const sessions = await this.deps.store.sessionsOf(principal);
    const connected = sessions.filter((s) => s.owned && s.record.connected).map((s) => s.record.sessionId);
    const controls = new Map<string, CatalogDocument['controls'][number]>();
    const channels = new Map<string, CatalogDocument['channels'][number]>();
    for (const catalog of await this.deps.store.catalogs(connected)) {
      for (const c of catalog.controls) if (!controls.has(c.controlId)) controls.set(c.controlId, c);
      for (const c of catalog.channels) if (!channels.has(c.channelId)) channels.set(c.channelId, c);
    }
    return { controls: [...controls.values()], channels: [...channels.values()] };
  }

  async request(
    attachmentId: string,
    sessionId: string,
    op: Operation,
    options: HubRequestOptions,
  ): Promise<HubOutcome> {
    const principal = currentPrincipal();
    const attachment = this.home.get(attachmentId);
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
          event.sessionId,
        );
      case 'resync':
        this.routes.forget(null);
        for (const wake of [...this.waiters]) wake();
        for (const l of this.listeners) if (l.event === 'sessionsChanged') (l.fn as () => void)();
        return;
      case 'revoked':
        this.deps.tenants.peek(event.principal)?.revokeHost(event.hostId);
        return;
      case 'attached':
        if (event.from !== this.deps.bus.nodeId)
          this.deps.tenants.peek(event.principal)?.resume(event.attachment, event.info);
        return;
      case 'detached':
        return this.detached(event);
    }
  }

  /** A tenant hub here ended an attachment for the person (in a tab here, or told by another node). */
  endedHere(principal: string, attachmentId: string): void {
    if (this.home.has(attachmentId)) this.emitTo(null, 'attachmentEnded', attachmentId);
    if (this.relaying.has(attachmentId)) return;
    const { bus, store } = this.deps;
    void store.markEndedByPerson(attachmentId).catch(() => undefined);
    void bus.broadcast({ t: 'detached', from: bus.nodeId, principal, attachmentId, byPerson: true });
  }

  /** Ends the mirrors of attachments whose node is gone; returns how many. */
  async sweepMirrors(members: (nodeIds: string[]) => Promise<Set<string>>): Promise<number> {
    let ended = 0;
    for (const [principal, hub] of this.deps.tenants.entries()) {
      const records = await this.deps.store.attachmentsOf(principal);
      const remote = records.filter((r) => r.node !== this.deps.bus.nodeId);
      const live = await members([...new Set(remote.map((r) => r.node))]);
      for (const r of remote) {
        if (live.has(r.node)) continue;
        hub.detach(r.summary.attachmentId).catch(() => undefined);
        await this.deps.store.removeAttachment(principal, r.summary.attachmentId);
        ended += 1;
      }
    }
    return ended;
  }

  /**
   * Writes this node's attachments again and forgets those Redis still has for
   * this node but that ended here (after Redis was away: it lost them, or kept
   * stale ones).
   */
  async resyncAttachments(): Promise<void> {
    const { store, bus, tenants } = this.deps;
    const principals = new Set([...this.home.values()].map((a) => a.principal));
    for (const [principal] of tenants.entries()) principals.add(principal);
    for (const principal of principals) {
      for (const r of await store.attachmentsOf(principal)) {
        if (r.node === bus.nodeId && !this.home.has(r.summary.attachmentId))
          await store.removeAttachment(principal, r.summary.attachmentId);
      }
    }
    for (const a of this.home.values()) {
      const summary = tenants.peek(a.principal)?.attachments.get(a.handle.attachmentId)?.summary;
      if (!summary) continue;
      await store.addAttachment(a.principal, { summary, namespace: a.handle.namespace, node: bus.nodeId });
      void bus.broadcast({
        t: 'attached',
        from: bus.nodeId,
        principal: a.principal,
        attachment: a.handle,
        info: a.info,
      });
    }
  }

  /** Registers a principal's attachments on other nodes in its hub here (its tabs list them). */
  async loadMirrors(principal: string, hub: Hub): Promise<void> {
    for (const r of await this.deps.store.attachmentsOf(principal)) {
      if (r.node === this.deps.bus.nodeId) continue;
      const handle = { attachmentId: r.summary.attachmentId, namespace: r.namespace };
      hub.resume(handle, { clientName: r.summary.clientName, transport: r.summary.transport });
    }
  }

  private detached(event: Extract<ClusterEvent, { t: 'detached' }>): void {
    if (event.from === this.deps.bus.nodeId) return;
    // A stateless client's attachment may be home on several nodes: one letting go does not end it here.
    const hub = this.deps.tenants.peek(event.principal);
    if (!hub) return;
    if (event.byPerson) {
      // The hub emits attachmentEnded (see endedHere), which closes a home attachment's MCP connection.
      this.relaying.add(event.attachmentId);
      hub.endAttachment(event.attachmentId, true);
      this.relaying.delete(event.attachmentId);
    } else if (!this.home.has(event.attachmentId)) void hub.detach(event.attachmentId);
  }

  private emitTo(principal: string | null, event: keyof HubEvents, arg: string | null): void {
    for (const l of [...this.listeners]) {
      if (l.event !== event || (principal !== null && l.principal !== principal)) continue;
      try {
        (l.fn as (a?: string) => void)(arg ?? undefined);
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
    let mutation = true;
    for (;;) {
      if (!this.deps.redis.ready()) return storeUnavailable();
      const found = await this.route(sessionId, attachment.principal);
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
            attachment: { attachmentId: attachment.handle.attachmentId, namespace: attachment.handle.namespace },
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

  /** Where a session of `principal` is: from the route cache, or read from Redis (and cached when held elsewhere). */
  private async route(
    sessionId: string,
    principal: string,
  ): Promise<HubOutcome | { record: ClusterSessionRecord; owner: string | null; reads: ReadonlySet<string> }> {
    const cached = this.routes.get(sessionId);
    if (cached) return cached.record.principal === principal ? cached : sessionNotFound();
    const route = await this.deps.store.route(sessionId).catch(() => null);
    if (route === null) return storeUnavailable();
    if (route.kind === 'unknown') return sessionNotFound();
    if (route.kind === 'closed') return route.principal === principal ? sessionClosed() : sessionNotFound();
    const { record, owner } = route;
    if (record.principal !== principal) return sessionNotFound();
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
