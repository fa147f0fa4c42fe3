/**
 * `session.open` (SPEC §2): a tab opens a session, or reopens its kept id after
 * a reload or reconnect. A page's session origin is its socket's; only the
 * extension may name the site a tab shows.
 */
import type { BrowserFrame } from '../../protocol/index.js';
import type { RelayConnection } from '../relay/connection.js';
import type { Hub } from './hub.js';

const SITE_ORIGIN = /^https?:\/\/[^/?#\s]{1,250}$/;

type OpenFrame = Extract<BrowserFrame, { t: 'session.open' }>;

/** Handles one `session.open` from an authenticated socket. */
export function openSession(hub: Hub, conn: RelayConnection, frame: OpenFrame): void {
  const host = conn.host;
  if (!host) return;
  const refuse = (message: string) => {
    hub.logger.warn('session refused', { conn: conn.id, hostId: host.hostId, reason: message });
    conn.send({ t: 'session.refused', ref: frame.ref, message });
  };
  let origin = host.origin;
  if (frame.origin !== undefined && frame.origin !== origin) {
    if (host.hostKind !== 'extension' || !SITE_ORIGIN.test(frame.origin))
      return refuse('only the extension may name a site origin');
    origin = frame.origin;
  }
  const sessionId = hub.sessions.chooseId(frame.sessionId, host.hostId, conn);
  const existing = hub.sessions.get(sessionId);
  if (existing) {
    existing.info = frame.info;
    existing.catalog = frame.catalog;
    existing.origin = origin;
    hub.sessions.reconnect(existing, conn);
    hub.events.emit('sessionUpdated', sessionId);
  } else {
    const room = hub.sessions.evictionCandidate();
    if (room === null) return refuse('too many open sessions; close a terminal tab and reload');
    if (room !== 'room') hub.closeSession(room, false);
    hub.sessions.add({
      sessionId,
      hostId: host.hostId,
      origin,
      hostKind: host.hostKind,
      info: frame.info,
      catalog: frame.catalog,
      openedAt: new Date().toISOString(),
      conn,
      graceTimer: null,
    });
    hub.events.emit('sessionsChanged');
  }
  conn.markAttached();
  conn.send({ t: 'session.opened', ref: frame.ref, sessionId });
  const session = hub.sessions.get(sessionId);
  if (session) hub.sendAttachments(session);
  hub.logger.info('session opened', { sessionId, hostId: host.hostId, kept: sessionId === frame.sessionId });
}
