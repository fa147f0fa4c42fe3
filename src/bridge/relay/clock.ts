/**
 * Timers and time, injectable so tests drive heartbeat and backoff without
 * waiting on the wall clock.
 */

/** An opaque timer handle. */
export type TimerHandle = unknown;

/** What the connection needs of time. */
export interface Clock {
  setTimeout(fn: () => void, ms: number): TimerHandle;
  clearTimeout(handle: TimerHandle): void;
  /** Milliseconds, monotonic enough for silence detection. */
  now(): number;
}

/** The real clock of the current global scope (window, worker or Node). */
export const systemClock: Clock = {
  setTimeout: (fn, ms) => globalThis.setTimeout(fn, ms),
  clearTimeout: (handle) => globalThis.clearTimeout(handle as Parameters<typeof globalThis.clearTimeout>[0]),
  now: () => Date.now(),
};
