/**
 * What the paper broker tells the terminal: `TradingEvent`s (the source of
 * the `trading.events` channel; fills arrive here, never in an
 * acknowledgement) and coarse change notices that views and revision
 * counters follow. Broker text in events is made safe before it leaves.
 */
import type { TradingEvent } from '../../../src/protocol/index.js';

/** What changed at the broker. */
export type ChangeKind = 'orders' | 'positions' | 'alerts' | 'fx' | 'emergency';

const MAX_TEXT = 1000;
/** A run of token-like characters this long may be a credential. */
const TOKEN_RUN = /[A-Za-z0-9+/_=-]{24,}/g;
const RECENT = 200;

/**
 * Broker text as events may carry it: whitespace-normalized, at most 1,000
 * characters, token-like runs blanked, null when blank.
 */
export function safeText(text: string | null | undefined): string | null {
  if (typeof text !== 'string') return null;
  const normalized = text.replace(/\s+/g, ' ').trim().replace(TOKEN_RUN, '[redacted]');
  if (!normalized) return null;
  return normalized.length <= MAX_TEXT ? normalized : `${normalized.slice(0, MAX_TEXT - 1)}…`;
}

/** The broker's event hub. */
export class BrokerEvents {
  private readonly eventListeners = new Set<(event: TradingEvent) => void>();
  private readonly changeListeners = new Set<(kind: ChangeKind) => void>();
  private readonly recentEvents: TradingEvent[] = [];

  /** Publishes one trading event (its message made safe). */
  emit(event: TradingEvent): void {
    const safe: TradingEvent = { ...event };
    if ('message' in event) safe.message = safeText(event.message);
    this.recentEvents.push(safe);
    if (this.recentEvents.length > RECENT) this.recentEvents.shift();
    for (const listener of this.eventListeners) guard(() => listener(safe));
  }

  /** Announces a change of one kind of broker state. */
  changed(kind: ChangeKind): void {
    for (const listener of this.changeListeners) guard(() => listener(kind));
  }

  /** Every trading event from now on; returns the unsubscribe. */
  subscribe(listener: (event: TradingEvent) => void): () => void {
    this.eventListeners.add(listener);
    return () => this.eventListeners.delete(listener);
  }

  /** How many trading-event listeners are subscribed (the `trading.events` bindings among them). */
  listenerCount(): number {
    return this.eventListeners.size;
  }

  /** Every change notice from now on; returns the unsubscribe. */
  onChange(listener: (kind: ChangeKind) => void): () => void {
    this.changeListeners.add(listener);
    return () => this.changeListeners.delete(listener);
  }

  /** The last events published, oldest first. */
  recent(): TradingEvent[] {
    return [...this.recentEvents];
  }
}

/** A failing listener must not stop the broker or the other listeners. */
function guard(run: () => void): void {
  try {
    run();
  } catch {
    // Listeners are views; the broker's state is already consistent.
  }
}
