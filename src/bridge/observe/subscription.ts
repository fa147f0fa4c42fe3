/**
 * One subscription in the bridge worker (SPEC §7): who owns it, its bindings,
 * its ring, and how it reads as a poll, a summary or a tombstone.
 */
import type * as z from 'zod/mini';
import type {
  StopReason,
  SubscriptionPoll,
  SubscriptionStartedSchema,
  SubscriptionSummary,
  Target,
} from '../../protocol/index.js';
import { EventRing } from './eventRing.js';

/** The answer to `start`. */
export type SubscriptionStarted = z.infer<typeof SubscriptionStartedSchema>;

/** One started binding. */
export interface BindingEntry {
  bindingId: string;
  channelId: string;
}

/** Where a subscription stands; `starting` is invisible until its bindings are all up. */
export type SubscriptionState = 'starting' | 'active' | 'stopped';

/** What a subscription is created with. */
export interface SubscriptionInit {
  subscriptionId: string;
  sessionId: string;
  attachmentId: string;
  target: Target;
  bindings: BindingEntry[];
  startedAtMs: number;
  capacity: number;
  /** For a restored subscription: the numbering continues after it. */
  lastSequence?: number;
}

/** One subscription and its ring buffer. */
export class Subscription {
  state: SubscriptionState = 'starting';
  stoppedAtMs: number | null = null;
  reason: StopReason | null = null;
  /** Relay handles of the bindings the page started, by binding index. */
  readonly handles: number[] = [];
  readonly ring: EventRing;

  constructor(readonly init: SubscriptionInit) {
    this.ring = new EventRing(init.capacity, init.lastSequence ?? 0);
  }

  get id(): string {
    return this.init.subscriptionId;
  }

  /** Marks it stopped; false when it already was. */
  markStopped(reason: StopReason, atMs: number): boolean {
    if (this.state === 'stopped') return false;
    this.state = 'stopped';
    this.reason = reason;
    this.stoppedAtMs = atMs;
    return true;
  }

  /** The answer to `start`. */
  started(): SubscriptionStarted {
    const { subscriptionId, target, bindings, startedAtMs } = this.init;
    return { subscriptionId, status: 'active', target, bindings: [...bindings], startedAt: iso(startedAtMs) };
  }

  /** What `list` and `stop` show. */
  summary(): SubscriptionSummary {
    const { subscriptionId, target, bindings, startedAtMs } = this.init;
    return {
      subscriptionId,
      status: this.state === 'stopped' ? 'stopped' : 'active',
      target,
      bindings: [...bindings],
      lastSequence: this.ring.lastSequence,
      droppedCount: this.ring.droppedTotal,
      startedAt: iso(startedAtMs),
      ...this.stopFields(),
    };
  }

  /** One poll: events after `afterSequence`, at most `limit`; consumes nothing. */
  poll(afterSequence: number | undefined, limit: number): SubscriptionPoll {
    const read = this.ring.read(afterSequence, limit);
    const { target, bindings } = this.init;
    const events = read.events.map((event) => {
      const binding = bindings[event.bindingIndex];
      return {
        sequence: event.sequence,
        receivedAt: iso(event.receivedAtMs),
        target,
        channelId: binding?.channelId ?? '',
        bindingId: binding?.bindingId ?? '',
        payload: event.payload,
      };
    });
    return {
      subscriptionId: this.id,
      status: this.state === 'stopped' ? 'stopped' : 'active',
      events,
      lastSequence: read.lastSequence,
      droppedBeforeSequence: read.droppedBeforeSequence,
      droppedCount: read.droppedCount,
      ...this.stopFields(),
    };
  }

  private stopFields(): Pick<SubscriptionSummary, 'stoppedAt' | 'reason'> {
    if (this.state !== 'stopped' || this.stoppedAtMs === null || this.reason === null) return {};
    return { stoppedAt: iso(this.stoppedAtMs), reason: this.reason };
  }
}

/** Epoch milliseconds as ISO 8601 text. */
export function iso(ms: number): string {
  return new Date(ms).toISOString();
}
