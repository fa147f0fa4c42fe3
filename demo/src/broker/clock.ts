/**
 * The broker's clock, injectable so tests (and the test hook `advance`) can
 * expire previews and FX quotes without waiting five minutes.
 */

/** Milliseconds since the epoch. */
export interface BrokerClock {
  now(): number;
}

/** A clock that follows a base clock plus an offset that only grows. */
export class OffsetClock implements BrokerClock {
  private offset = 0;

  constructor(private readonly base: () => number = Date.now) {}

  now(): number {
    return this.base() + this.offset;
  }

  /** Moves this clock forward by `ms` (negative values are ignored). */
  advance(ms: number): void {
    if (Number.isFinite(ms) && ms > 0) this.offset += ms;
  }
}

/** ISO-8601 time of a clock reading. */
export function isoAt(ms: number): string {
  return new Date(ms).toISOString();
}
