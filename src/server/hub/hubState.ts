/**
 * What the frame handlers (`hubFrames.ts`, `sessionOpen.ts`) use of the hub:
 * its tables and the few things a tab's frame can make it do. The hub
 * implements it; the handlers import this, never `hub.ts`, so the hub's files
 * import in one direction.
 */
import type { Logger } from '../log.js';
import type { RelayServerConnection } from '../relay/relayServerConnection.js';
import type { AttachmentRegistry } from './attachmentRegistry.js';
import type { HubSessions, SessionRecord } from './hubSessions.js';
import type { RequestTable } from './rules/requestTable.js';
import type { SessionEvents } from './sessionEvents.js';

/** The hub as a tab's frames see it. */
export interface HubState {
  readonly sessions: HubSessions;
  readonly attachments: AttachmentRegistry;
  readonly requests: RequestTable;
  readonly sessionEvents: SessionEvents;
  readonly logger: Logger;
  readonly limits: { readonly catalogBytes: number; readonly sessionsPerHost: number };
  readonly timing: { readonly reloadWindowMs: number };
  readonly now: () => number;
  /** Sends a session its attachments list. */
  sendAttachments(session: SessionRecord): void;
  /** Closes a session for good; in-flight requests resolve as lost. */
  closeSession(session: SessionRecord, announce: boolean): void;
  /** A frame that names something this socket does not own (SPEC §9). */
  foreign(conn: RelayServerConnection, what: string): void;
  /** The person at a tab of `hostId` detached an attachment from that host. */
  detachFromHost(attachmentId: string, hostId: string): void;
}
