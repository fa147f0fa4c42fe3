/**
 * The page → worker event path of subscriptions (SPEC §7, §12: ≥ 50,000
 * events/s). A binding's sink on the page never posts per event: it appends
 * the binding's handle and the projection to two plain arrays, which travel
 * as one message on the host-call link (`hostLink.ts` in src/protocol) when
 * 512 are queued or 4 ms after the first. A dropped projection travels as the
 * negated handle. Control messages (a target's unregistration) use the same
 * link, so they arrive after every event queued before them.
 */
import type { Target } from '../../protocol/index.js';
import type { BindingSinkEvent } from '../observe/observeTypes.js';

/** Events per message, at most. */
export const EVENT_BATCH_SIZE = 512;
/** How long the first queued event waits for company, in milliseconds. */
export const EVENT_BATCH_DELAY_MS = 4;

/** One message of binding events (or a control message) on the link. */
export type EventPortMessage = { t: 'events'; h: number[]; p: unknown[] } | { t: 'targetUnregistered'; target: Target };

/** Where the batches go (the page's end of the link). */
export interface EventPortSender {
  postMessage(message: EventPortMessage): void;
}

/** Schedules the delayed flush (tests pass their own). */
export type FlushScheduler = (flush: () => void, delayMs: number) => void;

const defaultScheduler: FlushScheduler = (flush, delayMs) => void globalThis.setTimeout(flush, delayMs);

/** Queues the page's binding events and posts them in batches. */
export class EventBatcher {
  private handles: number[] = [];
  private payloads: unknown[] = [];
  private scheduled = false;

  constructor(
    private readonly port: EventPortSender,
    private readonly schedule: FlushScheduler = defaultScheduler,
  ) {}

  /** The sink of the binding with this handle. */
  sink(handle: number): (event: BindingSinkEvent) => void {
    return (event) => this.push('payload' in event ? handle : -handle, 'payload' in event ? event.payload : undefined);
  }

  /** Queues one entry. */
  push(handle: number, payload: unknown): void {
    this.handles.push(handle);
    this.payloads.push(payload);
    if (this.handles.length >= EVENT_BATCH_SIZE) this.flush();
    else if (!this.scheduled) {
      this.scheduled = true;
      this.schedule(() => {
        this.scheduled = false;
        this.flush();
      }, EVENT_BATCH_DELAY_MS);
    }
  }

  /** Sends a control message after everything queued so far. */
  control(message: Exclude<EventPortMessage, { t: 'events' }>): void {
    this.flush();
    this.port.postMessage(message);
  }

  /** Posts what is queued, as one message (a pending delayed flush stays pending: one timer at a time). */
  flush(): void {
    if (this.handles.length === 0) return;
    const h = this.handles;
    const p = this.payloads;
    this.handles = [];
    this.payloads = [];
    try {
      this.port.postMessage({ t: 'events', h, p });
    } catch {
      this.postCloneable(h, p);
    }
  }

  /** A payload that cannot be cloned (a host defect) becomes a dropped marker, not a lost batch. */
  private postCloneable(h: number[], p: unknown[]): void {
    for (let i = 0; i < h.length; i++) {
      try {
        structuredClone(p[i]);
      } catch {
        h[i] = -Math.abs(h[i] ?? 0);
        p[i] = undefined;
      }
    }
    try {
      this.port.postMessage({ t: 'events', h, p });
    } catch {
      // The worker is gone; nothing can receive these events.
    }
  }
}
