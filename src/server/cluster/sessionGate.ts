/**
 * Admits browser sockets on a cluster node (SPEC §2, §14). A socket belongs
 * to the tenant its bearer named and goes to that tenant's hub. A tab that
 * reopens its kept session id through this node claims the id in Redis
 * first: another host's (or principal's) id gets a fresh one; an id whose
 * socket another node still holds open is a duplicated tab and gets a fresh
 * one too; an id held by a node that is gone, or that lets go of it, comes
 * here. Frames of a socket are handed to the hub in order, after that claim.
 */
import { CLOSE_CODES, type BrowserFrame } from '../../protocol/index.js';
import type { InboxMessage } from '../../protocol/wire/clusterBus.js';
import type { ConnectionSink, HubFrame, RelayServerConnection } from '../relay/relayServerConnection.js';
import type { RelayPeer, RelaySocket } from '../relay/relaySocket.js';
import type { Logger } from '../log.js';
import type { ClusterBus } from './clusterBus.js';
import { keys } from './clusterKeys.js';
import type { RedisClients } from './redisClients.js';
import type { TenantHubs } from './tenantHubs.js';

type OpenFrame = Extract<BrowserFrame, { t: 'session.open' }>;
type Released = Extract<InboxMessage, { t: 'released' }>;

/** How a kept id was decided. */
type Claim = 'keep' | 'fresh';

/** Timings; tests shorten them. */
export interface GateTiming {
  leaseMs: number;
  /** How long the node holding a kept id has to say whether its socket is still open. */
  releaseWaitMs: number;
}

/** The relay acceptor of a cluster node. */
export class SessionGate {
  /** Kept ids being claimed here now (a `release` for one says held). */
  readonly claiming = new Set<string>();
  private readonly waiting = new Map<string, (held: boolean) => void>();
  private counter = 0;

  constructor(
    private readonly tenants: TenantHubs,
    private readonly redis: RedisClients,
    private readonly bus: ClusterBus,
    private readonly timing: GateTiming,
    private readonly logger: Logger,
  ) {}

  /** Takes a socket whose upgrade named `peer.principal`. */
  connect(socket: RelaySocket, peer: RelayPeer): RelayServerConnection {
    if (peer.principal === undefined) throw new Error('a cluster relay socket without a principal');
    const hub = this.tenants.get(peer.principal);
    let queue: Promise<void> = Promise.resolve();
    let queued = 0;
    const enqueue = (step: () => Promise<void> | void) => {
      queued += 1;
      queue = queue
        .then(step)
        .catch((error: unknown) => this.logger.error('relay frame failed', { error: (error as Error).message }))
        .finally(() => void (queued -= 1));
    };
    const sink: ConnectionSink = {
      frame: (conn, frame) => {
        // Answers are the hot path: handed over at once unless an admission is pending.
        if (queued === 0 && frame.t !== 'session.open') return hub.frame(conn, frame);
        enqueue(async () => {
          const admitted = frame.t === 'session.open' ? await this.admit(conn, frame) : frame;
          if (admitted && conn.open) hub.frame(conn, admitted);
        });
      },
      closed: (conn) => (queued === 0 ? hub.closed(conn) : enqueue(() => hub.closed(conn))),
    };
    return hub.connect(socket, peer, sink);
  }

  /** A `released` answer from a node asked to let go of a kept id. */
  released(message: Released): void {
    this.waiting.get(message.id)?.(message.held);
  }

  private async admit(conn: RelayServerConnection, frame: OpenFrame): Promise<HubFrame | null> {
    const kept = frame.sessionId;
    const host = conn.host;
    if (kept === undefined || !host?.principal) return frame;
    this.claiming.add(kept);
    try {
      const claim = await this.claim(kept, host.hostId, host.principal);
      if (claim === 'keep') return frame;
      const { sessionId: _dropped, ...fresh } = frame;
      return fresh;
    } catch {
      conn.close(CLOSE_CODES.serverShutdown, 'cluster store unavailable; reconnecting');
      return null;
    } finally {
      this.claiming.delete(kept);
    }
  }

  private async claim(sessionId: string, hostId: string, principal: string, force = false): Promise<Claim> {
    const [verdict, holder] = await this.redis.cmd.tsClaim(
      keys.session(sessionId),
      keys.owner(sessionId),
      keys.tombstone(sessionId),
      hostId,
      principal,
      this.bus.nodeId,
      this.timing.leaseMs,
      force ? '1' : '0',
    );
    if (verdict === 'ok') return 'keep';
    if (verdict === 'foreign' || holder === undefined) return 'fresh';
    if (holder === this.bus.nodeId) return 'keep';
    const held = await this.askToRelease(holder, sessionId);
    if (held === true) return 'fresh';
    // Let go of, or its node is gone or silent: take it.
    return force ? 'fresh' : this.claim(sessionId, hostId, principal, true);
  }

  /** True: the other node still holds the socket; false: it let go; null: it is gone or did not answer. */
  private async askToRelease(node: string, sessionId: string): Promise<boolean | null> {
    const id = `${this.bus.nodeId}.g${(++this.counter).toString(36)}`;
    const answer = new Promise<boolean | null>((resolve) => {
      const timer = setTimeout(() => resolve(null), this.timing.releaseWaitMs);
      this.waiting.set(id, (held) => {
        clearTimeout(timer);
        resolve(held);
      });
    });
    const delivery = await this.bus.send(node, { t: 'release', id, from: this.bus.nodeId, sessionId });
    if (delivery !== 'delivered') this.waiting.get(id)?.(false);
    const held = delivery === 'delivered' ? await answer : null;
    this.waiting.delete(id);
    return held;
  }
}
