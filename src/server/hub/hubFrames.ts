/**
 * The frames a tab sends after hello (SPEC §2, §9): sessions opening, changing
 * and closing, answers and progress, and the person detaching attachments.
 * A frame naming a session or request this socket does not own is foreign.
 */
import type { BrowserFrame } from '../../protocol/index.js';
import type { HubFrame, RelayServerConnection } from '../relay/relayServerConnection.js';
import { EMPTY_CATALOG, indexCatalog } from './rules/catalogIndex.js';
import type { HubState } from './hubState.js';
import type { AnswerVerdict } from './rules/requestTable.js';
import { openSession } from './sessionOpen.js';

/** Handles one frame from an authenticated socket. */
export function handleHubFrame(hub: HubState, conn: RelayServerConnection, frame: HubFrame): void {
  switch (frame.t) {
    case 'session.open':
      return openSession(hub, conn, frame);
    case 'session.update':
      return updateSession(hub, conn, frame);
    case 'session.close':
      return closeOwnSession(hub, conn, frame.sessionId);
    case 'response':
      return verdict(hub, conn, hub.requests.answer(conn, frame), 'response');
    case 'progress':
      return verdict(hub, conn, hub.requests.progress(conn, frame), 'progress');
    case 'detach':
      return personDetach(hub, conn, frame);
  }
}

function updateSession(
  hub: HubState,
  conn: RelayServerConnection,
  frame: Extract<BrowserFrame, { t: 'session.update' }>,
): void {
  const session = hub.sessions.get(frame.sessionId);
  if (!session || session.conn !== conn) return hub.foreign(conn, 'session.update');
  session.info = frame.info;
  if (frame.catalog) {
    const vocabulary = indexCatalog(frame.catalog, hub.limits.catalogBytes);
    // Over catalogBytes (SPEC §6): nothing of it is kept, and every control it named counts as a mutation.
    if (!vocabulary) hub.logger.warn('session vocabulary over catalogBytes dropped', { sessionId: session.sessionId });
    session.vocabulary = vocabulary ?? EMPTY_CATALOG;
  }
  hub.sessionEvents.updated(session.sessionId);
}

function closeOwnSession(hub: HubState, conn: RelayServerConnection, sessionId: string): void {
  const session = hub.sessions.get(sessionId);
  if (!session || session.conn !== conn) return hub.foreign(conn, 'session.close');
  hub.closeSession(session, true);
}

function verdict(hub: HubState, conn: RelayServerConnection, answer: AnswerVerdict, what: string): void {
  if (answer === 'foreign') hub.foreign(conn, what);
  else if (answer === 'late') hub.logger.debug('late relay answer dropped', { conn: conn.id, frame: what });
}

/**
 * "Detach all" is the person's, at a tab they paired: only a socket that owns the
 * named session may detach, and only from its own host's sessions (SPEC §2).
 */
function personDetach(hub: HubState, conn: RelayServerConnection, frame: Extract<BrowserFrame, { t: 'detach' }>): void {
  if (frame.sessionId === undefined || hub.sessions.get(frame.sessionId)?.conn !== conn) {
    return hub.foreign(conn, 'detach');
  }
  const hostId = conn.host!.hostId;
  const ids = frame.attachmentId !== undefined ? [frame.attachmentId] : hub.attachments.idsFor(hostId);
  for (const id of ids) hub.detachFromHost(id, hostId);
}
