/**
 * Keeps Redis in step with the sessions whose sockets this node holds (SPEC
 * §14): each session's record, vocabulary and owner lease. The lease (a key
 * with a TTL) is renewed by this node while the tab's socket is here, let go
 * when the socket closes, and taken by whichever node the tab reconnects to.
 * Writes are batched: a change marks the session dirty and one flush writes
 * the state current at that moment, so writes never land out of order.
 */
import type { CatalogDocument } from '../../protocol/index.js';
import type { ClusterSessionRecord } from '../../protocol/wire/clusterBus.js';
import type { Hub } from '../hub/hub.js';
import type { SessionRecord } from '../hub/hubSessions.js';
import type { Logger } from '../log.js';
import type { ClusterBus } from './clusterBus.js';
import { keys } from './clusterKeys.js';
import type { RedisClients } from './redisClients.js';
import type { TenantHubs } from './tenantHubs.js';

/** Lease and record lifetimes. */
export interface MirrorTiming {
  /** An owner lease lives this long unless renewed. */
  leaseMs: number;
  /** How often leases are renewed (a third of the lease). */
  renewMs: number;
  /** A record lives this long unless renewed: the tab's grace to come back, and a margin. */
  recordTtlMs: number;
  /** How long a closed id is remembered (so it answers `session_closed`). */
  tombstoneMs: number;
}

interface Written {
  principal: string;
  hostId: string;
  json: string;
  catalog: CatalogDocument | null;
}

/** The control ids a catalog declares as reads. */
export function readsOf(catalog: CatalogDocument): string[] {
  return catalog.controls.filter((c) => !c.mutation).map((c) => c.controlId);
}

/** This node's sessions, mirrored. */
export class SessionMirror {
  private readonly written = new Map<string, Written>();
  private readonly dirty = new Set<string>();
  private flushing: Promise<void> = Promise.resolve();
  private scheduled = false;
  /** Sessions handed to another node: closed here without a tombstone. */
  private readonly handedOver = new Set<string>();
  private renewTimer: NodeJS.Timeout | null = null;

  constructor(
    private readonly redis: RedisClients,
    private readonly bus: ClusterBus,
    private readonly tenants: TenantHubs,
    private readonly timing: MirrorTiming,
    private readonly logger: Logger,
  ) {}

  /** Starts renewing leases. */
  start(): void {
    this.renewTimer = setInterval(() => void this.renew(), this.timing.renewMs);
    this.renewTimer.unref();
  }

  /** Follows a tenant hub's changes as they happen (not the coalesced notifications). */
  track(principal: string, hub: Hub): Array<() => void> {
    return [hub.sessionEvents.watch(() => this.mark(principal))];
  }

  /** The session held here under `sessionId` (connected or waiting for its tab), with its principal. */
  find(sessionId: string): { principal: string; hub: Hub; session: SessionRecord } | null {
    const known = this.written.get(sessionId)?.principal;
    const hub = known === undefined ? undefined : this.tenants.peek(known);
    const session = hub?.sessions.get(sessionId);
    if (known !== undefined && hub && session) return { principal: known, hub, session };
    for (const [principal, hub] of this.tenants.entries()) {
      const session = hub.sessions.get(sessionId);
      if (session) return { principal, hub, session };
    }
    return null;
  }

  /** Lets go of a session whose tab reconnected to another node: closed here, no tombstone. */
  handOver(sessionId: string): void {
    const found = this.find(sessionId);
    if (!found) return;
    this.handedOver.add(sessionId);
    found.hub.closeSession(found.session, false);
    this.written.delete(sessionId);
    void this.redis.cmd.tsLetGo(keys.owner(sessionId), this.bus.nodeId).catch(() => undefined);
    this.logger.info('session handed over to another node', { sessionId });
  }

  /** Writes everything again (after Redis was away: it may have lost or kept stale state). */
  resync(): void {
    this.written.clear();
    for (const [principal] of this.tenants.entries()) this.mark(principal);
  }

  /** Writes a principal's sessions at the next flush. */
  mark(principal: string): void {
    this.dirty.add(principal);
    if (this.scheduled) return;
    this.scheduled = true;
    setImmediate(() => {
      this.scheduled = false;
      this.flushing = this.flushing.then(() => this.flush()).catch(() => undefined);
    });
  }

  /** Resolves once pending writes are done. */
  settled(): Promise<void> {
    return this.flushing;
  }

  /** Stops renewing; closes nothing in Redis (the leases run out). */
  stop(): void {
    if (this.renewTimer) clearInterval(this.renewTimer);
  }

  private async flush(): Promise<void> {
    if (!this.redis.ready()) return;
    const principals = [...this.dirty];
    this.dirty.clear();
    for (const principal of principals) {
      const hub = this.tenants.peek(principal);
      const live = new Set<string>();
      for (const session of hub?.sessions.all() ?? []) {
        live.add(session.sessionId);
        await this.put(principal, session);
      }
      for (const [sessionId, w] of [...this.written]) {
        if (w.principal === principal && !live.has(sessionId)) await this.close(w, sessionId);
      }
      for (const sessionId of [...this.handedOver]) if (!live.has(sessionId)) this.handedOver.delete(sessionId);
    }
  }

  private async put(principal: string, session: SessionRecord): Promise<void> {
    const record: ClusterSessionRecord = {
      sessionId: session.sessionId,
      principal,
      hostId: session.hostId,
      node: this.bus.nodeId,
      origin: session.origin,
      hostKind: session.hostKind,
      info: session.info,
      openedAt: session.openedAt,
      connected: session.conn !== null,
      reads: readsOf(session.vocabulary.document),
    };
    const json = JSON.stringify(record);
    const before = this.written.get(session.sessionId);
    const catalog = session.vocabulary.document;
    if (before?.json === json && before.catalog === catalog) return;
    const catalogJson = before?.catalog === catalog ? '' : JSON.stringify(catalog);
    try {
      const verdict = await this.redis.cmd.tsPutSession(
        keys.session(session.sessionId),
        keys.owner(session.sessionId),
        keys.principalSessions(principal),
        keys.catalog(session.sessionId),
        this.bus.nodeId,
        json,
        this.timing.recordTtlMs,
        this.timing.leaseMs,
        record.connected ? '1' : '0',
        catalogJson,
      );
      if (verdict === 'lost') return this.handOver(session.sessionId);
      this.written.set(session.sessionId, { principal, hostId: session.hostId, json, catalog });
      void this.bus.broadcast({
        t: 'sessions',
        from: this.bus.nodeId,
        principal,
        sessionId: before ? session.sessionId : null,
      });
    } catch {
      this.dirty.add(principal);
    }
  }

  private async close({ principal, hostId }: Written, sessionId: string): Promise<void> {
    this.written.delete(sessionId);
    if (this.handedOver.delete(sessionId)) return;
    try {
      await this.redis.cmd.tsCloseSession(
        keys.session(sessionId),
        keys.owner(sessionId),
        keys.catalog(sessionId),
        keys.tombstone(sessionId),
        keys.principalSessions(principal),
        this.bus.nodeId,
        sessionId,
        JSON.stringify({ principal, hostId }),
        this.timing.tombstoneMs,
      );
      void this.bus.broadcast({ t: 'sessions', from: this.bus.nodeId, principal, sessionId: null });
    } catch {
      this.logger.warn('session close not written; its record expires by itself', { sessionId });
    }
  }

  private async renew(): Promise<void> {
    if (!this.redis.ready() || this.written.size === 0) return;
    const entries = [...this.written.keys()].map((sessionId) => ({ sessionId, found: this.find(sessionId) }));
    const held = entries.filter((e) => e.found !== null);
    if (held.length === 0) return;
    const args: (string | number)[] = [];
    for (const { sessionId } of held)
      args.push(keys.owner(sessionId), keys.session(sessionId), keys.catalog(sessionId));
    args.push(this.bus.nodeId, this.timing.leaseMs, this.timing.recordTtlMs);
    for (const { found } of held) args.push(found?.session.conn ? '1' : '0');
    try {
      const lost = await this.redis.cmd.tsRenew(held.length * 3, ...args);
      for (const position of lost) {
        const entry = held[position - 1];
        if (entry) this.handOver(entry.sessionId);
      }
    } catch {
      // Redis away: the readiness check reports it; the resync after rewrites everything.
    }
  }
}
