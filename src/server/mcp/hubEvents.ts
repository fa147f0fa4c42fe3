/**
 * Turns hub events into this connection's notifications (SPEC §3, §10):
 * a session pairing or closing is `resources/list_changed`; a summary change is
 * `resources/updated` for subscribers of tradescript://sessions; the person
 * pressing "detach" for this attachment closes the connection.
 */
import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { SESSIONS_URI } from '../../protocol/index.js';
import type { HubPort } from '../hub/hubPort.js';
import type { Logger } from '../log.js';
import type { Attachment } from './attachment.js';

/** What this connection has asked to hear. */
export interface ConnectionState {
  /** True once the client sent `notifications/initialized`. */
  initialized: boolean;
  /** Resource URIs the client subscribed to. */
  readonly subscribed: Set<string>;
}

/** Subscribes to the hub for one connection; returns the unsubscribe function. */
export function wireHubEvents(
  server: Server,
  hub: HubPort,
  attachment: Attachment,
  state: ConnectionState,
  logger: Logger,
): () => void {
  const deliver = (what: string, send: () => Promise<void>) => {
    if (!state.initialized) return;
    send().catch(() => logger.debug('notification not delivered', { what }));
  };
  const sessionsUpdated = () => {
    if (state.subscribed.has(SESSIONS_URI)) {
      deliver('resources/updated', () => server.sendResourceUpdated({ uri: SESSIONS_URI }));
    }
  };
  const offs = [
    hub.on('sessionsChanged', () => {
      deliver('resources/list_changed', () => server.sendResourceListChanged());
      sessionsUpdated();
    }),
    hub.on('sessionUpdated', () => sessionsUpdated()),
    hub.on('attachmentEnded', (attachmentId) => {
      if (attachmentId !== attachment.id) return;
      logger.info('attachment ended by the person', { attachmentId });
      server.close().catch(() => logger.debug('close failed', { attachmentId }));
    }),
  ];
  return () => offs.forEach((off) => off());
}
