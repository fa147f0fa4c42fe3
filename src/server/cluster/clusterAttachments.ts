/**
 * MCP attachments across the nodes of a cluster (SPEC §2, §13, §14). An
 * attachment is *home* on the nodes its client talks to: one node for a stdio
 * or 2025 session client, every node a stateless 2026-07-28 client's requests
 * reach (each derives the same id and namespace from its handle). Each home
 * node records itself in Redis; the other nodes of its principal hold a
 * *mirror* in their tenant hub, so their tabs list it and answer it under the
 * same namespace. An attachment ends everywhere when its last home node lets
 * go. The hosts the person detached it from ("detach" in a page) live in
 * Redis and go with it to every node, even after it ended and came back under
 * its kept id.
 */
import type { ClusterEvent } from '../../protocol/wire/clusterBus.js';
import type { Hub } from '../hub/hub.js';
import type { AttachmentHandle, AttachmentInfo } from '../hub/hubPort.js';
import type { Logger } from '../log.js';
import type { ClusterBus } from './clusterBus.js';
import type { ClusterStore } from './clusterStore.js';
import type { RedisClients } from './redisClients.js';
import type { TenantHubs } from './tenantHubs.js';

/** An attachment whose MCP client talks to this node. */
export interface HomeAttachment {
  readonly principal: string;
  readonly handle: AttachmentHandle;
  readonly info: AttachmentInfo;
}

/** What the attachments work with. */
export interface ClusterAttachmentsDeps {
  tenants: TenantHubs;
  redis: RedisClients;
  bus: ClusterBus;
  store: ClusterStore;
  logger: Logger;
}

type Event<T extends ClusterEvent['t']> = Extract<ClusterEvent, { t: T }>;

/** This node's side of the cluster's attachments. */
export class ClusterAttachments {
  private readonly home = new Map<string, HomeAttachment>();
  /** Detachments being applied because another node said so (not announced again). */
  private readonly relaying = new Set<string>();

  constructor(private readonly deps: ClusterAttachmentsDeps) {}

  /** A home attachment of this node. */
  get(attachmentId: string): HomeAttachment | undefined {
    return this.home.get(attachmentId);
  }

  /** Home attachments, for the health endpoint. */
  get size(): number {
    return this.home.size;
  }

  /** True when `principal` has attachments whose clients talk to this node. */
  hasHome(principal: string): boolean {
    for (const a of this.home.values()) if (a.principal === principal) return true;
    return false;
  }

  /** A new attachment of `principal` (a stdio or 2025 session client of this node). */
  async attach(principal: string, info: AttachmentInfo): Promise<AttachmentHandle> {
    const hub = this.deps.tenants.get(principal);
    const handle = await hub.attach(info);
    await this.registerHome(principal, hub, handle, info);
    return handle;
  }

  /**
   * An attachment of `principal` under a kept id and namespace (a stateless
   * client's handle, presented to any node): home here from now on, detached
   * from the hosts the person detached it from on any node. Null when the id
   * is home here for another principal.
   */
  async resume(principal: string, kept: AttachmentHandle, info: AttachmentInfo): Promise<AttachmentHandle | null> {
    const existing = this.home.get(kept.attachmentId);
    if (existing) return existing.principal === principal ? existing.handle : null;
    const detached = this.deps.redis.ready()
      ? ((await this.deps.store.detachedHostsOf([kept.attachmentId]).catch(() => []))[0] ?? [])
      : [];
    const hub = this.deps.tenants.get(principal);
    const handle = this.hold(hub, { ...kept, detachedHosts: detached }, info);
    if (handle === null) return null;
    await this.registerHome(principal, hub, handle, info);
    return handle;
  }

  /**
   * This node's client let go of an attachment (it left, or idled out). It
   * ends once no other node holds it; until then it stays here as a mirror.
   */
  async detach(attachmentId: string): Promise<void> {
    const a = this.home.get(attachmentId);
    if (!a) return;
    this.home.delete(attachmentId);
    const { store, bus, tenants } = this.deps;
    let others: string[] = [];
    if (this.deps.redis.ready()) {
      await store.removeAttachment(a.principal, attachmentId, bus.nodeId).catch(() => undefined);
      others = await store.holders(a.principal, attachmentId).catch(() => []);
      if (others.length > 0) others = [...(await store.members(others).catch(() => new Set<string>()))];
    }
    if (others.length > 0) return;
    await tenants.peek(a.principal)?.detach(attachmentId);
    void bus.broadcast({ t: 'detached', from: bus.nodeId, principal: a.principal, attachmentId });
  }

  /** The hosts the person detached a home attachment from (what a forwarded request carries). */
  detachedHostsOf(attachmentId: string): string[] {
    const a = this.home.get(attachmentId);
    return a ? (this.deps.tenants.peek(a.principal)?.attachments.detachedHostsOf(attachmentId) ?? []) : [];
  }

  /**
   * Registers (or finds) an attachment in a tenant hub here, detached from
   * `kept.detachedHosts` as well as from what the hub remembers.
   */
  hold(
    hub: Hub,
    kept: AttachmentHandle & { detachedHosts?: readonly string[] },
    info: AttachmentInfo,
  ): AttachmentHandle | null {
    const handle = { attachmentId: kept.attachmentId, namespace: kept.namespace };
    const hosts = kept.detachedHosts ?? [];
    const resumed = hub.resume(handle, info, hosts);
    if (resumed) return resumed;
    const live = hub.attachments.get(kept.attachmentId);
    if (!live || live.namespace !== kept.namespace) return null;
    for (const hostId of hosts) this.applyDetach(hub, kept.attachmentId, hostId);
    return handle;
  }

  /** The person at a tab here detached an attachment from its host: remembered in Redis, told to every node. */
  hostDetachedHere(principal: string, attachmentId: string, hostId: string): void {
    if (this.relaying.has(relayKey(attachmentId, hostId))) return;
    const { store, bus } = this.deps;
    void store.addDetachedHost(attachmentId, hostId).catch(() => undefined);
    void bus.broadcast({ t: 'hostDetached', from: bus.nodeId, principal, attachmentId, hostId });
  }

  /** Another node's attachment event. */
  event(event: Event<'attached' | 'detached' | 'hostDetached'>): void {
    if (event.from === this.deps.bus.nodeId) return;
    const hub = this.deps.tenants.peek(event.principal);
    if (!hub) return;
    switch (event.t) {
      case 'attached':
        this.hold(hub, event.attachment, event.info);
        return;
      case 'detached':
        // Held here too (a stateless client talking to this node as well): it goes on.
        if (!this.home.has(event.attachmentId)) void hub.detach(event.attachmentId);
        return;
      case 'hostDetached':
        return this.applyDetach(hub, event.attachmentId, event.hostId);
    }
  }

  /** Registers a principal's attachments held by other nodes in its hub here (its tabs list them). */
  async loadMirrors(principal: string, hub: Hub): Promise<void> {
    const records = (await this.deps.store.attachmentsOf(principal)).filter((r) => r.node !== this.deps.bus.nodeId);
    const ids = [...new Set(records.map((r) => r.summary.attachmentId))];
    const detached = await this.deps.store.detachedHostsOf(ids);
    for (const r of records) {
      const detachedHosts = detached[ids.indexOf(r.summary.attachmentId)] ?? [];
      const info = { clientName: r.summary.clientName, transport: r.summary.transport };
      this.hold(hub, { attachmentId: r.summary.attachmentId, namespace: r.namespace, detachedHosts }, info);
    }
  }

  /** Ends the mirrors of attachments whose every home node is gone; returns how many. */
  async sweepMirrors(): Promise<number> {
    const { store, bus, tenants } = this.deps;
    let ended = 0;
    for (const [principal, hub] of tenants.entries()) {
      const records = await store.attachmentsOf(principal);
      const remote = records.filter((r) => r.node !== bus.nodeId);
      const live = await store.members([...new Set(remote.map((r) => r.node))]);
      const dead = remote.filter((r) => !live.has(r.node));
      for (const r of dead) await store.removeAttachment(principal, r.summary.attachmentId, r.node);
      const held = new Set(remote.filter((r) => live.has(r.node)).map((r) => r.summary.attachmentId));
      for (const id of new Set(dead.map((r) => r.summary.attachmentId))) {
        if (held.has(id) || this.home.has(id)) continue;
        await hub.detach(id).catch(() => undefined);
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
  async resync(): Promise<void> {
    const { store, bus, tenants } = this.deps;
    const principals = new Set([...this.home.values()].map((a) => a.principal));
    for (const [principal] of tenants.entries()) principals.add(principal);
    for (const principal of principals) {
      for (const r of await store.attachmentsOf(principal)) {
        if (r.node === bus.nodeId && !this.home.has(r.summary.attachmentId))
          await store.removeAttachment(principal, r.summary.attachmentId, bus.nodeId);
      }
    }
    for (const a of this.home.values()) {
      const hub = tenants.peek(a.principal);
      if (hub) await this.announce(a.principal, hub, a.handle, a.info);
    }
  }

  private async registerHome(
    principal: string,
    hub: Hub,
    handle: AttachmentHandle,
    info: AttachmentInfo,
  ): Promise<void> {
    this.home.set(handle.attachmentId, { principal, handle, info });
    await this.announce(principal, hub, handle, info);
  }

  /** Records a home attachment in Redis and tells the other nodes. */
  private async announce(principal: string, hub: Hub, handle: AttachmentHandle, info: AttachmentInfo): Promise<void> {
    const { store, bus } = this.deps;
    const summary = hub.attachments.get(handle.attachmentId)?.summary;
    if (summary) {
      const record = { summary, namespace: handle.namespace, node: bus.nodeId };
      await store.addAttachment(principal, record).catch(() => undefined);
    }
    const detachedHosts = hub.attachments.detachedHostsOf(handle.attachmentId);
    const attachment = { ...handle, ...(detachedHosts.length > 0 ? { detachedHosts } : {}) };
    void bus.broadcast({ t: 'attached', from: bus.nodeId, principal, attachment, info });
  }

  private applyDetach(hub: Hub, attachmentId: string, hostId: string): void {
    const key = relayKey(attachmentId, hostId);
    this.relaying.add(key);
    try {
      hub.detachFromHost(attachmentId, hostId);
    } finally {
      this.relaying.delete(key);
    }
  }
}

function relayKey(attachmentId: string, hostId: string): string {
  return `${attachmentId}\n${hostId}`;
}
