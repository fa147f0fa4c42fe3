/**
 * Automatic retry of reads (SPEC §5): only work with `mutation: false`, only
 * on `service_unavailable`, `rate_limited`, `transport_error` and
 * `invalid_broker_response`, at most 3 attempts with bounded exponential
 * backoff. Mutations are never retried by anything.
 */

/** Most attempts of one read, the first included. */
export const READ_MAX_ATTEMPTS = 3;
/** The first backoff; each next one doubles. */
export const READ_BACKOFF_BASE_MS = 200;
/** No single backoff is longer than this. */
export const READ_BACKOFF_MAX_MS = 2_000;

/** How long to wait after failed attempt number `attempt` (1-based). */
export function backoffMs(attempt: number): number {
  return Math.min(READ_BACKOFF_MAX_MS, READ_BACKOFF_BASE_MS * 2 ** (attempt - 1));
}

/** One attempt's outcome, as the retry loop sees it. */
export type AttemptResult<T> = { done: true; value: T } | { done: false; retryable: boolean; value: T };

/**
 * Runs `attempt` until it is done, not retryable, out of attempts, or out of
 * time (a backoff that would not finish before `remaining()` runs out is not
 * taken). Returns the last attempt's value.
 */
export async function withReadRetry<T>(
  attempt: (n: number) => Promise<AttemptResult<T>>,
  wait: (ms: number) => Promise<void>,
  remaining: () => number,
  stopped: () => boolean,
): Promise<T> {
  for (let n = 1; ; n += 1) {
    const result = await attempt(n);
    if (result.done || !result.retryable || n >= READ_MAX_ATTEMPTS) return result.value;
    const delay = backoffMs(n);
    if (stopped() || delay >= remaining()) return result.value;
    await wait(delay);
    if (stopped()) return result.value;
  }
}
