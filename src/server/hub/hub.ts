/**
 * The hub (SPEC §2, §9): owns browser connections, sessions and attachments,
 * and routes each MCP front's requests to the one socket owning the session.
 * Implements {@link HubPort}; the relay's upgrade handler feeds it sockets.
 */
import {
  CLOSE_CODES,
  makeError,
  type AttachmentsFrameSchema,
  type CatalogDocument,
  type Operation,
  type SessionSummary,
} from '../../protocol/index.js';
import type { z } from 'zod';
import type { Logger } from '../log.js';
import {
  DEFAULT_RELAY_TIMING,
  RelayConnection,
  type ConnectionSink,
  type HubFrame,
  type RelayAuthenticator,
  type RelayTiming,
} from '../relay/connection.js';
import type { RelayPeer, RelaySocket } from '../relay/socket.js';
import { AttachmentRegistry } from './attachmentRegistry.js';
import { HubEmitter } from './emitter.js';
import type { AttachmentHandle, AttachmentInfo, HubEvents, HubOutcome, HubPort, HubRequestOptions } from './hubPort.js';
import { cancelledOutcome, containsMutation } from './lostOutcomes.js';
import { RequestTable } from './requestTable.js';
import { handleHubFrame } from './hubFrames.js';
import { SessionRegistry, type SessionRecord } from './sessionRegistry.js';

/** Hub timings; tests inject short ones. */
export interface HubTiming extends RelayTiming {
  /** How long a request waits for a disconnected tab to come back (SPEC §9: about 5 s). */
  reconnectWaitMs: number;
  /** How long a disconnected session stays listed before it is closed. */
  disconnectGraceMs: number;
  /** Time past the deadline for the page's own deadline answer to arrive first. */
  deadlineGraceMs: number;
}

/** Defaults: SPEC §9 relay timing, a 5 s reconnect wait, 10 minutes of grace. */
export const DEFAULT_HUB_TIMING: HubTiming = {
  ...DEFAULT_RELAY_TIMING,
  reconnectWaitMs: 5_000,
  disconnectGraceMs: 10 * 60_000,
  deadlineGraceMs: 500,
};

/** Options of a {@link Hub}. */
export interface HubOptions {
  /** Exchanges pairing codes and verifies credentials. */
  auth: RelayAuthenticator;
  logger: Logger;
  serverVersion: string;
  timing?: Partial<HubTiming>;
  now?: () => number;
  maxFrameBytes?: number;
}

/** A snapshot of the hub for `tradescript-mcp status`. */
export interface HubStatus {
  sockets: number;
  sessions: number;
  connectedSessions: number;
  attachments: number;
  requestsInFlight: number;
}

const REVOKED_REASON = 'credential revoked; run `npx tradescript-mcp pair` for a fresh link';

/** The sessions, attachments and request routing of one server. */
export class Hub implements HubPort, ConnectionSink {
  /** @internal shared with the session-open handler. */
  readonly sessions = new SessionRegistry();
  /** @internal */
  readonly attachments = new AttachmentRegistry();
  /** @internal */
  readonly events = new HubEmitter();
  /** @internal */
  readonly logger: Logger;
  /** @internal */
  readonly timing: HubTiming;
  private readonly conns = new Set<RelayConnection>();
  /** @internal */
  readonly requests: RequestTable;
  private readonly now: () => number;
  private closing = false;

  constructor(private readonly options: HubOptions) {
    this.logger = options.logger;
    this.timing = { ...DEFAULT_HUB_TIMING, ...options.timing };
    this.now = options.now ?? Date.now;
    this.requests = new RequestTable(this.now, this.timing.deadlineGraceMs);
  }

  /**
   * Takes a new browser socket (after the upgrade's Origin and Host checks).
   * A cluster node passes its own `sink`, which admits a frame (a kept session
   * id) before handing it to {@link frame} and {@link closed}.
   */
  connect(socket: RelaySocket, peer: RelayPeer, sink: ConnectionSink = this): RelayConnection {
    const conn = new RelayConnection(socket, peer, {
      auth: this.options.auth,
      sink,
      logger: this.logger,
      serverVersion: this.options.serverVersion,
      timing: this.timing,
      maxFrameBytes: this.options.maxFrameBytes,
    });
    if (this.closing) conn.close(CLOSE_CODES.serverShutdown, 'server shutting down');
    else this.conns.add(conn);
    return conn;
  }

  async attach(info: AttachmentInfo): Promise<AttachmentHandle> {
    const record = this.attachments.add(info, new Date(this.now()));
    this.logger.info('attached', { attachmentId: record.attachmentId, transport: info.transport });
    this.attachmentsChanged();
    return { attachmentId: record.attachmentId, namespace: record.namespace };
  }

  /**
   * Re-registers an attachment under its kept id and namespace (a front that
   * followed the hub to this process), so the operation ledger in the page
   * still finds its entries. Null when the id is live here or the person ended it.
   */
  resume(kept: AttachmentHandle, info: AttachmentInfo): AttachmentHandle | null {
    if (!this.attachments.resumable(kept.attachmentId)) return null;
    const record = this.attachments.add(info, new Date(this.now()), kept);
    this.logger.info('attachment resumed', { attachmentId: record.attachmentId, transport: info.transport });
    this.attachmentsChanged();
    return { attachmentId: record.attachmentId, namespace: record.namespace };
  }

  async detach(attachmentId: string): Promise<void> {
    this.endAttachment(attachmentId, false);
  }

  async listSessions(): Promise<SessionSummary[]> {
    return this.sessions.summaries(this.attachments.summaries());
  }

  async catalog(): Promise<CatalogDocument> {
    const controls = new Map<string, CatalogDocument['controls'][number]>();
    const channels = new Map<string, CatalogDocument['channels'][number]>();
    for (const s of this.sessions.all()) {
      if (!s.conn) continue;
      for (const c of s.catalog.controls) if (!controls.has(c.controlId)) controls.set(c.controlId, c);
      for (const c of s.catalog.channels) if (!channels.has(c.channelId)) channels.set(c.channelId, c);
    }
    return { controls: [...controls.values()], channels: [...channels.values()] };
  }

  async request(
    attachmentId: string,
    sessionId: string,
    op: Operation,
    options: HubRequestOptions,
  ): Promise<HubOutcome> {
    const attachment = this.attachments.get(attachmentId);
    if (!attachment) return this.notAttached(attachmentId);
    if (options.signal?.aborted) return cancelledOutcome(null);
    const started = this.now();
    const session = await this.routable(sessionId, op, options.signal);
    if ('ok' in session) return session;
    const body = {
      sessionId,
      attachment: { attachmentId, namespace: attachment.namespace, clientName: attachment.summary.clientName },
      adapter: options.adapter,
      limits: options.limits,
      deadlineMs: Math.max(1, options.deadlineMs - (this.now() - started)),
      op,
    };
    return this.requests.dispatch(session.record, session.conn, body, options);
  }

  on<E extends keyof HubEvents>(event: E, listener: HubEvents[E]): () => void {
    return this.events.on(event, listener);
  }

  /** The host that owns a session (open or waiting for its tab), or null. */
  hostOfSession(sessionId: string): string | null {
    return this.sessions.get(sessionId)?.hostId ?? null;
  }

  /**
   * Ends a revoked host's presence: its sessions close (`session_closed`) and
   * its sockets close with 4403. The credential itself is removed by pairing.
   */
  revokeHost(hostId: string): number {
    const owned = this.sessions.ofHost(hostId);
    for (const s of owned) this.closeSession(s, false);
    for (const conn of [...this.conns])
      if (conn.host?.hostId === hostId) conn.close(CLOSE_CODES.forbidden, REVOKED_REASON);
    if (owned.length > 0) this.events.emit('sessionsChanged');
    this.logger.info('host revoked', { hostId, sessions: owned.length });
    return owned.length;
  }

  /** Counts for `tradescript-mcp status`. */
  status(): HubStatus {
    const all = this.sessions.all();
    return {
      sockets: this.conns.size,
      sessions: all.length,
      connectedSessions: all.filter((s) => s.conn).length,
      attachments: this.attachments.ids().length,
      requestsInFlight: this.requests.size,
    };
  }

  /** Shuts down: requests in flight resolve as lost, sockets close with 4500. */
  close(): void {
    if (this.closing) return;
    this.closing = true;
    this.requests.loseAll('shutdown');
    for (const s of this.sessions.all()) if (s.graceTimer) clearTimeout(s.graceTimer);
    for (const conn of [...this.conns]) conn.close(CLOSE_CODES.serverShutdown, 'server shutting down');
  }

  /** @internal {@link ConnectionSink}: one frame after hello. */
  frame(conn: RelayConnection, frame: HubFrame): void {
    handleHubFrame(this, conn, frame);
  }

  /** @internal {@link ConnectionSink}: the socket is gone. */
  closed(conn: RelayConnection): void {
    this.conns.delete(conn);
    if (this.closing || !conn.host) return;
    this.requests.lose({ conn }, 'socket');
    for (const s of this.sessions.ofConnection(conn)) {
      s.conn = null;
      s.graceTimer = setTimeout(() => this.closeSession(s, true), this.timing.disconnectGraceMs);
      s.graceTimer.unref();
      this.events.emit('sessionUpdated', s.sessionId);
    }
    this.logger.info('relay socket closed', { conn: conn.id, hostId: conn.host.hostId });
  }

  /** @internal Sends a session its attachments list. */
  sendAttachments(session: SessionRecord): void {
    const frame: z.infer<typeof AttachmentsFrameSchema> = {
      t: 'attachments',
      sessionId: session.sessionId,
      list: this.attachments.summaries(),
    };
    session.conn?.send(frame);
  }

  /** @internal Closes a session for good; in-flight requests resolve as lost. */
  closeSession(session: SessionRecord, announce: boolean): void {
    this.requests.lose({ session }, 'session-closed');
    this.sessions.close(session);
    this.logger.info('session closed', { sessionId: session.sessionId, hostId: session.hostId });
    if (announce) this.events.emit('sessionsChanged');
  }

  /** @internal A frame that names something this socket does not own (SPEC §9). */
  foreign(conn: RelayConnection, what: string): void {
    this.logger.warn('foreign relay frame', { conn: conn.id, frame: what, hostId: conn.host?.hostId });
    conn.close(CLOSE_CODES.malformed, 'foreign frame');
  }

  private async routable(
    sessionId: string,
    op: Operation,
    signal: AbortSignal | undefined,
  ): Promise<{ record: SessionRecord; conn: RelayConnection } | HubOutcome> {
    const found = this.sessions.lookup(sessionId);
    if (found.kind === 'unknown') {
      return fail('session_not_found', 'No session has this id. Read tradescript://sessions for the paired sessions.');
    }
    if (found.kind === 'closed') return fail('session_closed', CLOSED_MESSAGE);
    if (!found.session.conn) {
      await this.sessions.waitForConnection(sessionId, this.timing.reconnectWaitMs, signal);
      if (signal?.aborted) return cancelledOutcome(null);
    }
    const record = this.sessions.get(sessionId);
    if (!record) return fail('session_closed', CLOSED_MESSAGE);
    // Still within its grace period: the tab is reconnecting, not gone, and nothing was sent.
    if (!record.conn) return notSent(containsMutation(op, record.catalog));
    return { record, conn: record.conn };
  }

  private notAttached(attachmentId: string): HubOutcome {
    if (this.attachments.wasEnded(attachmentId)) {
      return fail(
        'control_unavailable',
        'The person ended this MCP attachment from the terminal. Reconnect the MCP client to attach again.',
      );
    }
    return fail('internal_error', 'This MCP connection is not attached to the hub.');
  }

  /** @internal Ends an attachment: the pages hear `attachment.ended`; the person's detach is announced. */
  endAttachment(attachmentId: string, byPerson: boolean): void {
    if (!this.attachments.remove(attachmentId, byPerson)) return;
    this.logger.info('detached', { attachmentId, byPerson });
    for (const conn of this.conns) if (conn.host) conn.send({ t: 'attachment.ended', attachmentId });
    this.attachmentsChanged();
    if (byPerson) this.events.emit('attachmentEnded', attachmentId);
  }

  private attachmentsChanged(): void {
    for (const s of this.sessions.all()) {
      this.sendAttachments(s);
      this.events.emit('sessionUpdated', s.sessionId);
    }
  }
}

const CLOSED_MESSAGE =
  'The terminal tab of this session went away or its pairing was revoked. Ask the person to reopen it, then read tradescript://sessions.';

const RECONNECTING_MESSAGE =
  'The terminal tab is reconnecting and nothing was sent to it. Read tradescript://sessions until it is connected, then call again.';

/** A request never sent because its tab is reconnecting: safe to repeat (after a backoff for reads). */
function notSent(mutation: boolean): HubOutcome {
  const error = makeError('transport_error', RECONNECTING_MESSAGE, mutation ? { retry: 'after_reread' } : {});
  return { ok: false, error, environment: null };
}

function fail(code: Parameters<typeof makeError>[0], message: string): HubOutcome {
  return { ok: false, error: makeError(code, message), environment: null };
}
