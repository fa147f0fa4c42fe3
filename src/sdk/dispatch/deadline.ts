/**
 * Time and cancellation for one request: the call deadline (SPEC §6, 30 s by
 * default), the MCP client's cancel, and settling a control's promise against
 * them without ever throwing. Each of them is a {@link Stop}: "has it fired?"
 * is answered from a flag, a listener is a closure in a list, and an
 * AbortSignal (or a timer) is made only when something waits on it — a call
 * that is never cancelled and answers at once makes none (issue 15).
 */

/**
 * When something stops waiting: `aborted` is answered without a signal,
 * `onAbort` hears of it without one, and `signal` is made the first time a
 * control reads it.
 */
export interface Stop {
  readonly aborted: boolean;
  readonly signal: AbortSignal;
  /** Calls `listener` once when this stops (at once if it has). */
  onAbort(listener: () => void): void;
}

/** The end of one request's time: a stop that fires (`aborted`) when the deadline passes. */
export interface Deadline extends Stop {
  /** Milliseconds left (0 when passed). */
  remaining(): number;
  /** Stops the timer. */
  dispose(): void;
}

function monotonic(): number {
  return globalThis.performance?.now() ?? Date.now();
}

/**
 * A stop that fires once: by {@link Trip.fire}, or when `due` says so.
 * `arm` runs when the first listener waits (a deadline starts its timer
 * there); the signal is made when first read.
 */
export class Trip implements Stop {
  private listeners: (() => void)[] | null = null;
  private made: AbortSignal | null = null;
  private fired = false;

  constructor(
    private readonly due?: () => boolean,
    private arm?: () => void,
  ) {}

  get aborted(): boolean {
    return this.fired || this.due?.() === true;
  }

  get signal(): AbortSignal {
    if (this.made === null) {
      const controller = new AbortController();
      this.made = controller.signal;
      this.onAbort(() => controller.abort());
    }
    return this.made;
  }

  onAbort(listener: () => void): void {
    if (this.aborted) {
      this.fire();
      return listener();
    }
    this.arm?.();
    this.arm = undefined;
    (this.listeners ??= []).push(listener);
  }

  /** Fires once: every listener, and the signal if one was made. */
  readonly fire = (): void => {
    if (this.fired) return;
    this.fired = true;
    const listeners = this.listeners;
    this.listeners = null;
    for (const listener of listeners ?? []) listener();
  };
}

/**
 * Starts a deadline `ms` from now. Its timer starts only when something
 * waits on it (a listener or its signal): a call whose control answers at
 * once (most reads) never starts a timer (one per call cost the page's main
 * thread ~17 µs a call, issue 15).
 */
export function startDeadline(ms: number): Deadline {
  const end = monotonic() + ms;
  let timer: ReturnType<typeof setTimeout> | undefined;
  let disposed = false;
  const trip = new Trip(
    () => monotonic() >= end,
    () => {
      if (!disposed) timer = setTimeout(trip.fire, end - monotonic());
    },
  );
  return Object.assign(trip, {
    remaining: () => Math.max(0, end - monotonic()),
    dispose: () => {
      disposed = true;
      clearTimeout(timer);
    },
  });
}

/** What a caller of the SDK offers to say it cancelled: `RequestHooks`' `signal` and `onAbort`. */
export interface CancelHooks {
  readonly signal?: AbortSignal;
  onAbort?(listener: () => void): void;
}

/**
 * The client's cancel of one request, from its hooks (none: a stop that never
 * fires, as a dispatched mutation's control sees). With `onAbort` the SDK
 * registers one listener and never reads `signal`, so a caller that makes its
 * signal lazily makes none. With only `signal`, that signal's abort is the
 * cancel, listened to only once something waits on it (a host may pass one
 * long-lived signal to every call).
 */
export function cancelOf(hooks: CancelHooks = {}): Stop {
  const signal = hooks.onAbort ? undefined : hooks.signal;
  const cancel: Trip = new Trip(
    () => signal?.aborted === true,
    () => signal?.addEventListener('abort', cancel.fire, { once: true }),
  );
  hooks.onAbort?.(cancel.fire);
  return cancel;
}

/** The stop of one request: its cancel or its deadline, whichever comes first. */
export function requestStop(cancel: Stop, deadline: Deadline): Stop {
  const either: Trip = new Trip(
    () => cancel.aborted || deadline.aborted,
    () => {
      cancel.onAbort(either.fire);
      deadline.onAbort(either.fire);
    },
  );
  return either;
}

/** Resolves when the stop fires. */
export function whenAborted(stop: Stop): Promise<void> {
  return new Promise((resolve) => stop.onAbort(resolve));
}

/** How running something ended. */
export type Settled<T> = { kind: 'value'; value: T } | { kind: 'error'; error: unknown } | { kind: 'aborted' };

/**
 * Runs `work` (sync throws included) and settles it against `stop`: whichever
 * comes first wins. The work itself is never cancelled by this; a late answer
 * is ignored.
 */
export async function settle<T>(work: () => T | Promise<T>, stop: Stop): Promise<Settled<T>> {
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
  const aborted = whenAborted(stop).then((): Settled<T> => ({ kind: 'aborted' }));
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
