/**
 * The outcomes a cluster node gives on its own (SPEC §4, §14): a session this
 * principal does not have, a closed one, a tab still reconnecting, the store
 * away. None of them sent anything to a tab.
 */
import { makeError, type ErrorCode } from '../../protocol/index.js';
import type { HubOutcome } from '../hub/hubPort.js';
import { notSent } from '../hub/rules/routing.js';

/** An error outcome with no environment. */
export function failed(code: ErrorCode, message: string, retry?: 'after_reread'): HubOutcome {
  return { ok: false, error: makeError(code, message, retry ? { retry } : {}), environment: null };
}

/** Unknown here, or another principal's (the same answer, so nothing is learned about the others). */
export function sessionNotFound(): HubOutcome {
  return failed('session_not_found', 'No session has this id. Read tradescript://sessions for the paired sessions.');
}

/** Closed for good. */
export function sessionClosed(): HubOutcome {
  return failed(
    'session_closed',
    'The terminal tab of this session went away or its pairing was revoked. Ask the person to reopen it, then read tradescript://sessions.',
  );
}

/**
 * The tab is away (reconnecting to this node or another, or gone) and nothing
 * was sent: as on one machine, a read is `transport_error`, a call that may
 * mutate `session_closed` (SPEC §4 keeps transport errors for reads).
 */
export function stillReconnecting(mutation: boolean): HubOutcome {
  return notSent(mutation);
}

/**
 * Redis is away: the session's node cannot be reached and nothing was sent
 * (SPEC §14: `transport_error`, fast). A read may retry after a backoff; a
 * call that may mutate re-reads first (never `after_backoff`, SPEC §4).
 */
export function storeUnavailable(mutation = false): HubOutcome {
  return failed(
    'transport_error',
    "The cluster's store (Redis) is unavailable, so the node holding this terminal tab cannot be reached; nothing was sent. Retry after a short wait.",
    mutation ? 'after_reread' : undefined,
  );
}
