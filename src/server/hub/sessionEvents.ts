/**
 * The session events every MCP front listens to (`sessionsChanged`:
 * resources/list_changed and resources/updated of tradescript://sessions;
 * `sessionUpdated`: resources/updated), coalesced at their one source so a
 * flood of `session.update` frames never becomes a flood of notifications,
 * over either protocol revision (SPEC §3): at most one event per interval
 * (250 ms). The first event after a quiet interval goes out at once; later
 * ones in the interval go out once at its end, as `sessionsChanged` when any
 * session paired or closed (it implies an update), else as one
 * `sessionUpdated` naming the last session that changed.
 */
import type { HubEmitter } from './emitter.js';

/** Shortest time between two session events, in milliseconds. */
export const SESSION_EVENT_INTERVAL_MS = 250;

/** Coalesces session events into a {@link HubEmitter}. */
export class SessionEvents {
  private lastAt = Number.NEGATIVE_INFINITY;
  private timer: ReturnType<typeof setTimeout> | null = null;
  private changedPending = false;
  private updatedPending: string | null = null;
  private readonly watchers = new Set<() => void>();

  constructor(
    private readonly emitter: HubEmitter,
    private readonly now: () => number,
    private readonly intervalMs: number = SESSION_EVENT_INTERVAL_MS,
  ) {}

  /** A session paired or closed. */
  changed(): void {
    this.changedPending = true;
    this.tell();
    this.schedule();
  }

  /** A session's summary changed. */
  updated(sessionId: string): void {
    this.updatedPending = sessionId;
    this.tell();
    this.schedule();
  }

  /**
   * Hears every change at once, not coalesced: a cluster node keeps its
   * sessions' records in Redis from it, since routing must not wait for a
   * notification interval (it batches its own writes). Returns how to stop.
   */
  watch(listener: () => void): () => void {
    this.watchers.add(listener);
    return () => this.watchers.delete(listener);
  }

  private tell(): void {
    for (const watcher of [...this.watchers]) watcher();
  }

  /** Drops what is pending (the hub is closing). */
  close(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    this.changedPending = false;
    this.updatedPending = null;
  }

  private schedule(): void {
    if (this.timer) return;
    const wait = this.lastAt + this.intervalMs - this.now();
    if (wait <= 0) return this.flush();
    this.timer = setTimeout(() => {
      this.timer = null;
      this.flush();
    }, wait);
    this.timer.unref?.();
  }

  private flush(): void {
    const changed = this.changedPending;
    const updated = this.updatedPending;
    this.changedPending = false;
    this.updatedPending = null;
    if (!changed && updated === null) return;
    this.lastAt = this.now();
    if (changed) this.emitter.emit('sessionsChanged');
    else if (updated !== null) this.emitter.emit('sessionUpdated', updated);
  }
}
