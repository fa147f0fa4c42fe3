/**
 * A clock tests advance by hand: timers run in time order when `advance`
 * passes their due time, so heartbeat and backoff logic is checked without
 * waiting.
 */
import type { Clock, TimerHandle } from '../relay/clock.js';

interface Pending {
  id: number;
  at: number;
  fn: () => void;
}

/** A manually advanced {@link Clock}. */
export class ManualClock implements Clock {
  private time = 0;
  private nextId = 1;
  private pending: Pending[] = [];
  /** Every delay ever requested, in order. */
  readonly requested: number[] = [];

  setTimeout(fn: () => void, ms: number): TimerHandle {
    const id = this.nextId++;
    this.requested.push(ms);
    this.pending.push({ id, at: this.time + Math.max(0, ms), fn });
    return id;
  }

  clearTimeout(handle: TimerHandle): void {
    this.pending = this.pending.filter((p) => p.id !== handle);
  }

  now(): number {
    return this.time;
  }

  /** Timers still waiting. */
  get waiting(): number {
    return this.pending.length;
  }

  /** Moves time forward, running every timer that falls due on the way. */
  advance(ms: number): void {
    const end = this.time + ms;
    for (;;) {
      const due = this.pending.filter((p) => p.at <= end).sort((a, b) => a.at - b.at || a.id - b.id)[0];
      if (!due) break;
      this.pending = this.pending.filter((p) => p !== due);
      this.time = due.at;
      due.fn();
    }
    this.time = end;
  }
}
