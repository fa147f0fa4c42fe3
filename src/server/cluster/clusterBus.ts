/**
 * Messaging between nodes (SPEC §14) on Redis pub/sub: each node subscribes to
 * its own inbox channel and to the events channel. Pub/sub, not streams, on
 * purpose: a message is delivered to whoever listens now or to nobody, never
 * kept to be replayed later — a forwarded call must never run late or twice —
 * and PUBLISH answers how many received it, so a request to a node that is
 * gone is known at once as not sent. Every message is validated on arrival,
 * through the schema's fast path (a forwarded call is read twice per call, its
 * request on the owner and its outcome back here; zod's generic walk of a
 * request cost about 0.1 ms of the forwarding node's critical path, issue 15).
 */
import { withFastPath } from '../../protocol/fastParse.js';
import {
  ClusterEventSchema,
  InboxMessageSchema,
  parseClusterJson,
  type ClusterEvent,
  type InboxMessage,
} from '../../protocol/wire/clusterBus.js';
import type { Logger } from '../log.js';
import { keys } from './clusterKeys.js';
import type { RedisClients } from './redisClients.js';

/** The bus's schemas with their fast paths: what they accept and answer is zod's (src/protocol/fastParse.test.ts). */
const InboxReader = withFastPath(InboxMessageSchema);
const EventReader = withFastPath(ClusterEventSchema);

/** What became of a message sent to one node. */
export type Delivery =
  /** A subscriber of the node's inbox received it. */
  | 'delivered'
  /** Nobody listens on that inbox: the node is gone; nothing was delivered. */
  | 'absent'
  /** Redis is away here: nothing was sent. */
  | 'unsent'
  /** The connection failed while sending: it may or may not have been delivered. */
  | 'unknown';

/** A node's side of the bus. */
export class ClusterBus {
  private inboxHandler: (message: InboxMessage) => void = () => undefined;
  private eventHandler: (event: ClusterEvent) => void = () => undefined;

  constructor(
    private readonly redis: RedisClients,
    readonly nodeId: string,
    private readonly logger: Logger,
  ) {}

  /** Subscribes (the subscription comes back by itself after a reconnect). */
  async start(): Promise<void> {
    const inbox = keys.inbox(this.nodeId);
    this.redis.sub.on('message', (channel: string, text: string) => {
      if (channel === inbox) return this.receive(InboxReader, text, 'inbox', (m) => this.inboxHandler(m));
      if (channel === keys.events) return this.receive(EventReader, text, 'event', (e) => this.eventHandler(e));
    });
    await this.redis.sub.subscribe(inbox, keys.events);
  }

  /** Hears this node's inbox. */
  onInbox(handler: (message: InboxMessage) => void): void {
    this.inboxHandler = handler;
  }

  /** Hears the events channel (this node's own events included). */
  onEvent(handler: (event: ClusterEvent) => void): void {
    this.eventHandler = handler;
  }

  /** Sends one message to one node's inbox. */
  async send(nodeId: string, message: InboxMessage): Promise<Delivery> {
    if (!this.redis.ready()) return 'unsent';
    try {
      const receivers = await this.redis.cmd.publish(keys.inbox(nodeId), JSON.stringify(message));
      return receivers > 0 ? 'delivered' : 'absent';
    } catch {
      return 'unknown';
    }
  }

  /** Tells every node (best effort: an event lost while Redis is away is made up by the resync after). */
  async broadcast(event: ClusterEvent): Promise<void> {
    if (!this.redis.ready()) return;
    await this.redis.cmd.publish(keys.events, JSON.stringify(event)).catch(() => undefined);
  }

  /** The nodes among `nodeIds` that listen on their inbox now; null when Redis cannot tell. */
  async listening(nodeIds: readonly string[]): Promise<Set<string> | null> {
    if (nodeIds.length === 0) return new Set();
    if (!this.redis.ready()) return null;
    try {
      const reply = (await this.redis.cmd.pubsub('NUMSUB', ...nodeIds.map(keys.inbox))) as (string | number)[];
      const live = new Set<string>();
      nodeIds.forEach((nodeId, i) => {
        if (Number(reply[i * 2 + 1]) > 0) live.add(nodeId);
      });
      return live;
    } catch {
      return null;
    }
  }

  private receive<T>(
    schema: Parameters<typeof parseClusterJson<T>>[0],
    text: string,
    what: string,
    then: (value: T) => void,
  ): void {
    const value = parseClusterJson(schema, text);
    if (value === null) return this.logger.warn('malformed cluster message dropped', { channel: what });
    try {
      then(value);
    } catch (error) {
      this.logger.error('cluster message handler failed', { channel: what, error: (error as Error).message });
    }
  }
}
