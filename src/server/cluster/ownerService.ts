/**
 * The owning side of forwarded requests (SPEC §14): another node's MCP client
 * asks a session whose socket this node holds. The request runs through the
 * principal's local hub exactly as a local one would — the attachment is
 * registered here under its own id and namespace, so the tab's operation
 * ledger keys it the same on every node — and its progress and outcome go
 * back to the asking node's inbox. A session not held here is answered
 * `notHere` at once (nothing reached a tab).
 */
import { CLOSE_CODES } from '../../protocol/index.js';
import type { InboxMessage } from '../../protocol/wire/clusterBus.js';
import type { Logger } from '../log.js';
import type { ClusterAttachments } from './clusterAttachments.js';
import type { ClusterBus } from './clusterBus.js';
import type { SessionMirror } from './sessionMirror.js';
import type { TenantHubs } from './tenantHubs.js';

type Message<T extends InboxMessage['t']> = Extract<InboxMessage, { t: T }>;

/** Serves the requests other nodes forward here. */
export class OwnerService {
  private readonly running = new Map<string, AbortController>();

  constructor(
    private readonly bus: ClusterBus,
    private readonly mirror: SessionMirror,
    private readonly tenants: TenantHubs,
    private readonly attachments: Pick<ClusterAttachments, 'hold'>,
    private readonly claiming: ReadonlySet<string>,
    private readonly logger: Logger,
    /** How long a tab has to answer before its socket here counts as dead. */
    private readonly probeMs: number,
  ) {}

  /** Requests from other nodes running here. */
  get size(): number {
    return this.running.size;
  }

  /** Runs one forwarded request. */
  async request(message: Message<'request'>): Promise<void> {
    // The principal's own hub: a session of another principal is simply not there.
    const hub = this.tenants.peek(message.principal);
    if (!hub?.sessions.get(message.sessionId)?.conn) {
      await this.bus.send(message.from, { t: 'notHere', id: message.id });
      return;
    }
    // The asking node's attachment, under its own id and namespace and detached from the same hosts.
    this.attachments.hold(hub, message.attachment, message.info);
    const abort = new AbortController();
    this.running.set(message.id, abort);
    try {
      const outcome = await hub.request(message.attachment.attachmentId, message.sessionId, message.op, {
        adapter: message.adapter,
        limits: message.limits,
        deadlineMs: message.deadlineMs,
        signal: abort.signal,
        ...(message.progress
          ? {
              onProgress: (progress: number, total?: number) =>
                void this.bus.send(message.from, {
                  t: 'progress',
                  id: message.id,
                  progress,
                  ...(total === undefined ? {} : { total }),
                }),
            }
          : {}),
      });
      const delivery = await this.bus.send(message.from, { t: 'outcome', id: message.id, outcome });
      if (delivery !== 'delivered') this.logger.warn('forwarded outcome not delivered', { delivery });
    } finally {
      this.running.delete(message.id);
    }
  }

  /** The asking node's MCP client cancelled. */
  cancel(message: Message<'cancel'>): void {
    this.running.get(message.id)?.abort();
  }

  /**
   * A tab reconnected to another node with a kept id this node has: `held`
   * when its socket is still open here (the other tab is a duplicate of this
   * one and gets a fresh id), else this node lets go of the session.
   */
  async release(message: Message<'release'>): Promise<void> {
    const found = this.mirror.find(message.sessionId);
    const conn = found?.session.conn;
    // A socket that looks open may be dead (a dropped network path): the tab must answer to count.
    const held = this.claiming.has(message.sessionId) || (conn ? await conn.probe(this.probeMs) : false);
    if (!held && conn?.open) conn.close(CLOSE_CODES.heartbeatTimeout, 'the tab reconnected elsewhere');
    if (!held && found) this.mirror.handOver(message.sessionId);
    await this.bus.send(message.from, { t: 'released', id: message.id, held });
  }
}
