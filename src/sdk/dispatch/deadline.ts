/**
 * Time and cancellation for one request: the call deadline (SPEC §6, 30 s by
 * default), the MCP client's cancel signal, and settling a control's promise
 * against them without ever throwing.
 */

/** The end of one request's time. */
export interface Deadline {
  /** Aborted when the deadline passes. */
  readonly signal: AbortSignal;
  /** Milliseconds left (0 when passed). */
  remaining(): number;
  expired(): boolean;
  /** Stops the timer. */
  dispose(): void;
}

function monotonic(): number {
  return globalThis.performance?.now() ?? Date.now();
}

/** Starts a deadline `ms` from now. */
export function startDeadline(ms: number): Deadline {
  const controller = new AbortController();
  const end = monotonic() + ms;
  const timer = setTimeout(() => controller.abort(), Math.max(0, ms));
  return {
    signal: controller.signal,
    remaining: () => Math.max(0, end - monotonic()),
    expired: () => controller.signal.aborted || monotonic() >= end,
    dispose: () => clearTimeout(timer),
  };
}

/** A signal aborted as soon as any of the given ones is. */
export function anySignal(signals: ReadonlyArray<AbortSignal | undefined>): AbortSignal {
  const controller = new AbortController();
  for (const signal of signals) {
    if (!signal) continue;
    if (signal.aborted) {
      controller.abort();
      break;
    }
    signal.addEventListener('abort', () => controller.abort(), { once: true });
  }
  return controller.signal;
}

/** A signal that never aborts (what a dispatched mutation sees: it runs to its outcome). */
export function neverAborted(): AbortSignal {
  return new AbortController().signal;
}

/** Resolves when the signal aborts. */
export function whenAborted(signal: AbortSignal): Promise<void> {
  if (signal.aborted) return Promise.resolve();
  return new Promise((resolve) => signal.addEventListener('abort', () => resolve(), { once: true }));
}

/** How running something ended. */
export type Settled<T> = { kind: 'value'; value: T } | { kind: 'error'; error: unknown } | { kind: 'aborted' };

/**
 * Runs `work` (sync throws included) and settles it against `stop`: whichever
 * comes first wins. The work itself is never cancelled by this; a late answer
 * is ignored.
 */
export async function settle<T>(work: () => T | Promise<T>, stop: AbortSignal): Promise<Settled<T>> {
  let running: Promise<Settled<T>>;
  try {
    running = Promise.resolve(work()).then(
      (value): Settled<T> => ({ kind: 'value', value }),
      (error: unknown): Settled<T> => ({ kind: 'error', error }),
    );
  } catch (error) {
    return { kind: 'error', error };
  }
  if (stop.aborted) return { kind: 'aborted' };
  const aborted = whenAborted(stop).then((): Settled<T> => ({ kind: 'aborted' }));
  return Promise.race([running, aborted]);
}

/** Waits `ms`, or less when the signal aborts first. */
export function sleep(ms: number, signal: AbortSignal): Promise<void> {
  if (signal.aborted) return Promise.resolve();
  return new Promise((resolve) => {
    const timer = setTimeout(done, ms);
    signal.addEventListener('abort', done, { once: true });
    function done(): void {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    }
  });
}
