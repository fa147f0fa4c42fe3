/**
 * Reconnect delays (SPEC §9: "reconnect with jittered backoff"): exponential
 * growth with full jitter, so many tabs that lost one server do not return
 * in lockstep.
 */

/** Backoff timing. */
export interface BackoffPolicy {
  /** The first ceiling. */
  baseMs: number;
  /** No delay ever exceeds this. */
  capMs: number;
  /** A socket that stayed up this long after `welcome` resets the growth. */
  stableMs: number;
}

/** The default policy: 250 ms doubling to a 10 s cap. */
export const DEFAULT_BACKOFF: BackoffPolicy = { baseMs: 250, capMs: 10_000, stableMs: 10_000 };

/**
 * The delay before reconnect number `attempt` (0-based): uniformly random in
 * `[0, min(cap, base · 2^attempt))` ("full jitter").
 */
export function backoffDelay(attempt: number, random: () => number, policy: BackoffPolicy = DEFAULT_BACKOFF): number {
  const ceiling = Math.min(policy.capMs, policy.baseMs * 2 ** Math.min(attempt, 30));
  const unit = Math.min(Math.max(random(), 0), 1);
  return Math.floor(unit * ceiling);
}
