/**
 * `session.open` (SPEC §2): a tab opens a session, or reopens its kept id after
 * a reload or reconnect. A page's session origin is its socket's; only the
 * extension may name the site a tab shows. A vocabulary over `catalogBytes` is
 * refused (SPEC §6), and a new session needs room (`sessionAdmission.ts`); a
 * reconnecting tab's own session needs none.
 */
import type { BrowserFrame } from '../../protocol/index.js';
import type { RelayServerConnection } from '../relay/relayServerConnection.js';
import { indexCatalog } from './rules/catalogIndex.js';
import type { HubState } from './hubState.js';
import { admitSession } from './rules/sessionAdmission.js';

/** The page shows this when its declared vocabulary is over `catalogBytes` (at most 256 characters). */
export function catalogRefusal(max: number): string {
  return `this terminal declares more than ${max} bytes of controls and channels (catalogBytes); declare fewer or shorter ones`;
}

const SITE_ORIGIN = /^https?:\/\/[^/?#\s]{1,250}$/;

type OpenFrame = Extract<BrowserFrame, { t: 'session.open' }>;

/** Handles one `session.open` from an authenticated socket. */
export function openSession(hub: HubState, conn: RelayServerConnection, frame: OpenFrame): void {
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
  const vocabulary = indexCatalog(frame.catalog, hub.limits.catalogBytes);
  if (!vocabulary) return refuse(catalogRefusal(hub.limits.catalogBytes));
  const sessionId = hub.sessions.chooseId(frame.sessionId, host.hostId, conn);
  const existing = hub.sessions.get(sessionId);
  if (existing) {
    existing.info = frame.info;
    existing.vocabulary = vocabulary;
    existing.origin = origin;
    hub.sessions.reconnect(existing, conn);
    hub.sessionEvents.updated(sessionId);
  } else {
    const rules = { perHost: hub.limits.sessionsPerHost, reloadWindowMs: hub.timing.reloadWindowMs, now: hub.now() };
    const room = admitSession(hub.sessions.all(), host.hostId, rules);
    if (room.kind === 'refused') return refuse(room.message);
    if (room.kind === 'evict') hub.closeSession(room.session, true);
    hub.sessions.add({
      sessionId,
      hostId: host.hostId,
      origin,
      hostKind: host.hostKind,
      info: frame.info,
      vocabulary,
      openedAt: new Date().toISOString(),
      conn,
      graceTimer: null,
      disconnectedAt: null,
    });
    hub.sessionEvents.changed();
  }
  conn.markAttached();
  conn.send({ t: 'session.opened', ref: frame.ref, sessionId });
  const session = hub.sessions.get(sessionId);
  if (session) hub.sendAttachments(session);
  hub.logger.info('session opened', { sessionId, hostId: host.hostId, kept: sessionId === frame.sessionId });
}
