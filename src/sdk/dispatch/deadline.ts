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

/**
 * Starts a deadline `ms` from now. Its signal, and the timer behind it, are
 * made only when something waits on it: a call whose control answers at once
 * (most reads) never starts a timer (one per call cost the page's main thread
 * ~17 µs a call, issue 15).
 */
export function startDeadline(ms: number): Deadline {
  const end = monotonic() + ms;
  let controller: AbortController | null = null;
  let timer: ReturnType<typeof setTimeout> | undefined;
  let disposed = false;
  return {
    get signal() {
      if (controller === null) {
        const made = new AbortController();
        controller = made;
        const left = end - monotonic();
        if (left <= 0) made.abort();
        else if (!disposed) timer = setTimeout(() => made.abort(), left);
      }
      return controller.signal;
    },
    remaining: () => Math.max(0, end - monotonic()),
    expired: () => controller?.signal.aborted === true || monotonic() >= end,
    dispose: () => {
      disposed = true;
      if (timer !== undefined) clearTimeout(timer);
      timer = undefined;
    },
  };
}

/**
 * When a read stops waiting: the client's cancel or the deadline. `aborted`
 * is answered without a signal; `signal` (one AbortSignal for both) is made
 * the first time something waits on it.
 */
export interface Stop {
  readonly aborted: boolean;
  readonly signal: AbortSignal;
}

/** The stop of one request: its cancel signal or its deadline, whichever comes first. */
export function requestStop(cancel: AbortSignal | undefined, deadline: Deadline): Stop {
  let signal: AbortSignal | null = null;
  return {
    get aborted() {
      return signal?.aborted === true || cancel?.aborted === true || deadline.expired();
    },
    get signal() {
      signal ??= anySignal([cancel, deadline.signal]);
      return signal;
    },
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
export async function settle<T>(work: () => T | Promise<T>, stop: AbortSignal | Stop): Promise<Settled<T>> {
  let result: T | Promise<T>;
  try {
    result = work();
  } catch (error) {
    return { kind: 'error', error };
  }
  // An answer given at once needs no race (and no abort listener): it wins unless already stopped.
  if (!isThenable(result)) return stop.aborted ? { kind: 'aborted' } : { kind: 'value', value: result };
  const running = Promise.resolve(result).then(
    (value): Settled<T> => ({ kind: 'value', value }),
    (error: unknown): Settled<T> => ({ kind: 'error', error }),
  );
  if (stop.aborted) return { kind: 'aborted' };
  const signal = 'addEventListener' in stop ? stop : stop.signal;
  const aborted = whenAborted(signal).then((): Settled<T> => ({ kind: 'aborted' }));
  return Promise.race([running, aborted]);
}

function isThenable(value: unknown): value is PromiseLike<unknown> {
  return (
    (typeof value === 'object' || typeof value === 'function') &&
    value !== null &&
    typeof (value as { then?: unknown }).then === 'function'
  );
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
