/**
 * Turns hub events into one connection's notifications (SPEC §3, §10): a
 * session pairing or closing is `resources/list_changed`; a summary change is
 * `resources/updated` for tradescript://sessions; the person pressing
 * "detach" for this attachment closes the connection. On a 2025 connection
 * they are sent once it is initialized, `resources/updated` only after
 * `resources/subscribe`; on a 2026-07-28 stdio connection `serveStdio` puts
 * them on the client's `subscriptions/listen` stream, filtered as it asked.
 * Stateless HTTP requests have no connection: their endpoint publishes the
 * same events once to its listen streams (`http/mcpEndpoint.ts`).
 */
import type { Server } from '@modelcontextprotocol/server';
import { SESSIONS_URI } from '../../protocol/index.js';
import type { HubPort } from '../hub/hubPort.js';
import type { Logger } from '../log.js';
import type { Attachment } from './attachments/attachment.js';

/** What this connection has asked to hear. */
export interface ConnectionState {
  /** True once notifications may flow: a 2025 client sent `notifications/initialized`; a 2026 one always. */
  initialized: boolean;
  /** 2026-07-28: the listen stream filters, so every update is offered. */
  readonly modern: boolean;
  /** Resource URIs a 2025 client subscribed to. */
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
    if (state.modern || state.subscribed.has(SESSIONS_URI)) {
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
