/**
 * Where a request goes (SPEC §2, §4, §9): to the one socket owning its
 * session, waiting a few seconds for a tab that is reconnecting; otherwise an
 * answer saying why nothing was sent, with a code the request may have (a call
 * that may mutate never gets `transport_error`, which SPEC §4 keeps for reads).
 */
import { makeError, type ErrorCode, type Operation } from '../../../protocol/index.js';
import type { RelayServerConnection } from '../../relay/relayServerConnection.js';
import type { HubOutcome } from '../hubPort.js';
import { cancelledOutcome, containsMutation } from './lostOutcomes.js';
import type { SessionRecord, HubSessions } from '../hubSessions.js';

const CLOSED_MESSAGE =
  'The terminal tab of this session went away or its pairing was revoked. Ask the person to reopen it, then read tradescript://sessions.';

const RECONNECTING_MESSAGE =
  'The terminal tab is reconnecting and nothing was sent to it. Read tradescript://sessions until it is connected, then call again.';

const AWAY_MESSAGE =
  'The terminal tab of this session is not connected (it went away, or is reloading) and nothing was sent to it. Ask the person to open or reload it; once tradescript://sessions shows it connected, call again (an earlier attempt under the same operationId keeps its own outcome).';

function fail(code: ErrorCode, message: string): HubOutcome {
  return { ok: false, error: makeError(code, message), environment: null };
}

/**
 * A request never sent because its tab is away (SPEC §4): a read is
 * `transport_error` (after a backoff); a call that may mutate is
 * `session_closed`, a code a mutation may have, never a transport error.
 */
export function notSent(mutation: boolean): HubOutcome {
  return mutation ? fail('session_closed', AWAY_MESSAGE) : fail('transport_error', RECONNECTING_MESSAGE);
}

/** A request from an attachment the person detached from this session's host: nothing is sent. */
export function detachedHere(): HubOutcome {
  return fail(
    'control_unavailable',
    'The person ended this MCP client’s use of this terminal ("detach" in the page); nothing was sent. Terminals of other hosts still work. Reconnect the MCP client to use this terminal again.',
  );
}

/** A request from an attachment the hub does not hold (`ended`: it existed and its connection closed). */
export function notAttached(ended: boolean): HubOutcome {
  if (ended)
    return fail('control_unavailable', 'This MCP attachment has ended. Reconnect the MCP client to attach again.');
  return fail('internal_error', 'This MCP connection is not attached to the hub.');
}

/**
 * The session's record and socket, waiting up to `waitMs` for a tab that is
 * reconnecting; else the outcome that says why nothing was sent.
 */
export async function routable(
  sessions: HubSessions,
  sessionId: string,
  op: Operation,
  waitMs: number,
  signal: AbortSignal | undefined,
): Promise<{ record: SessionRecord; conn: RelayServerConnection } | HubOutcome> {
  const found = sessions.lookup(sessionId);
  if (found.kind === 'unknown') {
    return fail('session_not_found', 'No session has this id. Read tradescript://sessions for the paired sessions.');
  }
  if (found.kind === 'closed') return fail('session_closed', CLOSED_MESSAGE);
  if (!found.session.conn) {
    await sessions.waitForConnection(sessionId, waitMs, signal);
    if (signal?.aborted) return cancelledOutcome(null);
  }
  const record = sessions.get(sessionId);
  if (!record) return fail('session_closed', CLOSED_MESSAGE);
  // Still within its grace period: the tab is away (reconnecting or gone), and nothing was sent.
  if (!record.conn) return notSent(containsMutation(op, record.vocabulary.document));
  return { record, conn: record.conn };
}
