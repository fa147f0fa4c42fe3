/**
 * The hub (SPEC §2, §9): owns browser connections, sessions and attachments,
 * and routes each MCP front's requests to the one socket owning the session.
 * Implements {@link HubPort}; the relay's upgrade handler feeds it sockets.
 */
import {
  CLOSE_CODES,
  HUB_LIMITS,
  type AttachmentsFrameSchema,
  type CatalogResource,
  type Operation,
  type SessionSummary,
} from '../../protocol/index.js';
import type { z } from 'zod';
import type { Logger } from '../log.js';
import {
  DEFAULT_RELAY_TIMING,
  RelayServerConnection,
  type ConnectionSink,
  type HubFrame,
  type RelayTiming,
} from '../relay/relayServerConnection.js';
import type { RelayAuthenticator } from '../relay/relayAuth.js';
import type { RelayPeer, RelaySocket } from '../relay/relaySocket.js';
import { AttachmentRegistry, type AttachmentRecord } from './attachmentRegistry.js';
import { catalogResource } from './rules/catalogIndex.js';
import { HubEmitter } from './emitter.js';
import type { AttachmentHandle, AttachmentInfo, HubEvents, HubOutcome, HubPort, HubRequestOptions } from './hubPort.js';
import { cancelledOutcome, isMutation } from './rules/lostOutcomes.js';
import { RequestTable } from './rules/requestTable.js';
import { handleHubFrame } from './hubFrames.js';
import type { HubState } from './hubState.js';
import { detachedHere, notAttached, routable } from './rules/routing.js';
import { SESSION_EVENT_INTERVAL_MS, SessionEvents } from './sessionEvents.js';
import { HubSessions, type SessionRecord } from './hubSessions.js';
import { TwinCalls } from './rules/twinCalls.js';

/** Hub timings; tests inject short ones. */
export interface HubTiming extends RelayTiming {
  /** How long a request waits for a disconnected tab to come back (SPEC §9: about 5 s). */
  reconnectWaitMs: number;
  /** How long a disconnected session stays listed before it is closed. */
  disconnectGraceMs: number;
  /** Time past the deadline for the page's own deadline answer to arrive first. */
  deadlineGraceMs: number;
  /**
   * A session whose tab has been away for less than this may be reloading: it is
   * never evicted to make room for another session (SPEC §2).
   */
  reloadWindowMs: number;
  /** Shortest time between two session events (resources/updated, list_changed), SPEC §3. */
  sessionEventIntervalMs: number;
}

/** Defaults: SPEC §9 relay timing, a 5 s reconnect wait, 10 minutes of grace. */
export const DEFAULT_HUB_TIMING: HubTiming = {
  ...DEFAULT_RELAY_TIMING,
  reconnectWaitMs: 5_000,
  disconnectGraceMs: 10 * 60_000,
  deadlineGraceMs: 500,
  reloadWindowMs: 60_000,
  sessionEventIntervalMs: SESSION_EVENT_INTERVAL_MS,
};

/** The limits the hub itself enforces (SPEC §2, §6); the rest travel with each request. */
export type HubLimits = { -readonly [K in keyof typeof HUB_LIMITS]: number };

/** Options of a {@link Hub}. */
export interface HubOptions {
  /** Exchanges pairing codes and verifies credentials. */
  auth: RelayAuthenticator;
  logger: Logger;
  serverVersion: string;
  /** Started with `--enable-trading` (the welcome tells each page). */
  tradingEnabled?: boolean;
  timing?: Partial<HubTiming>;
  now?: () => number;
  maxFrameBytes?: number;
  /** Defaults: SPEC §6. A `--limit` may lower them. */
  limits?: Partial<HubLimits>;
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
export class Hub implements HubPort, ConnectionSink, HubState {
  /** @internal shared with the session-open handler. */
  readonly sessions = new HubSessions();
  /** @internal */
  readonly attachments = new AttachmentRegistry();
  /** @internal */
  readonly events = new HubEmitter();
  /** @internal Session events, coalesced (at most one per interval). */
  readonly sessionEvents: SessionEvents;
  /** @internal */
  readonly logger: Logger;
  /** @internal */
  readonly timing: HubTiming;
  /** @internal */
  readonly limits: HubLimits;
  private readonly conns = new Set<RelayServerConnection>();
  private readonly twins = new TwinCalls();
  /** @internal */
  readonly requests: RequestTable;
  /** @internal */
  readonly now: () => number;
  private closing = false;

  constructor(private readonly options: HubOptions) {
    this.logger = options.logger;
    this.timing = { ...DEFAULT_HUB_TIMING, ...options.timing };
    this.limits = {
      sessionsPerHost: options.limits?.sessionsPerHost ?? HUB_LIMITS.sessionsPerHost,
      catalogBytes: options.limits?.catalogBytes ?? HUB_LIMITS.catalogBytes,
    };
    this.now = options.now ?? Date.now;
    this.sessionEvents = new SessionEvents(this.events, this.now, this.timing.sessionEventIntervalMs);
    this.requests = new RequestTable(this.now, this.timing.deadlineGraceMs);
  }

  /**
   * Takes a new browser socket (after the upgrade's Origin and Host checks).
   * A cluster node passes its own `sink`, which admits a frame (a kept session
   * id) before handing it to {@link frame} and {@link closed}.
   */
  connect(socket: RelaySocket, peer: RelayPeer, sink: ConnectionSink = this): RelayServerConnection {
    const conn = new RelayServerConnection(socket, peer, {
      auth: this.options.auth,
      sink,
      logger: this.logger,
      serverVersion: this.options.serverVersion,
      tradingEnabled: this.options.tradingEnabled ?? false,
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
   * followed the hub to this process, a stateless client's handle), so the
   * operation ledger in the page still finds its entries. It stays detached
   * from `detachedHosts` and from the hosts it was detached from when it
   * ended here. Null when the id is live here.
   */
  resume(kept: AttachmentHandle, info: AttachmentInfo, detachedHosts: readonly string[] = []): AttachmentHandle | null {
    if (!this.attachments.resumable(kept.attachmentId)) return null;
    const record = this.attachments.add(info, new Date(this.now()), kept);
    for (const hostId of detachedHosts) this.attachments.detachFromHost(record.attachmentId, hostId);
    this.logger.info('attachment resumed', { attachmentId: record.attachmentId, transport: info.transport });
    this.attachmentsChanged();
    return { attachmentId: record.attachmentId, namespace: record.namespace };
  }

  async detach(attachmentId: string): Promise<void> {
    this.endAttachment(attachmentId);
  }

  async listSessions(): Promise<SessionSummary[]> {
    return this.sessions.summaries((hostId) => this.attachments.summariesFor(hostId));
  }

  async catalog(maxBytes: number): Promise<CatalogResource> {
    const connected = this.sessions.all().filter((s) => s.conn !== null);
    return catalogResource(
      connected.map((s) => s.vocabulary),
      maxBytes,
    );
  }

  async request(
    attachmentId: string,
    sessionId: string,
    op: Operation,
    options: HubRequestOptions,
  ): Promise<HubOutcome> {
    const attachment = this.attachments.get(attachmentId);
    if (!attachment) return notAttached(this.attachments.wasEnded(attachmentId));
    if (options.signal?.aborted) return cancelledOutcome(null);
    const mutates = (controlId: string): boolean => {
      const record = this.sessions.get(sessionId);
      return record ? isMutation(controlId, record.vocabulary.document) : true;
    };
    return this.twins.run(attachmentId, sessionId, op, mutates, () => this.route(attachment, sessionId, op, options));
  }

  private async route(
    attachment: AttachmentRecord,
    sessionId: string,
    op: Operation,
    options: HubRequestOptions,
  ): Promise<HubOutcome> {
    const { attachmentId } = attachment;
    const started = this.now();
    const session = await routable(this.sessions, sessionId, op, this.timing.reconnectWaitMs, options.signal);
    if ('ok' in session) return session;
    if (this.attachments.isDetachedFrom(attachmentId, session.record.hostId)) return detachedHere();
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
    if (owned.length > 0) this.sessionEvents.changed();
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
    this.sessionEvents.close();
    this.requests.loseAll('shutdown');
    for (const s of this.sessions.all()) if (s.graceTimer) clearTimeout(s.graceTimer);
    for (const conn of [...this.conns]) conn.close(CLOSE_CODES.serverShutdown, 'server shutting down');
  }

  /** @internal {@link ConnectionSink}: one frame after hello. */
  frame(conn: RelayServerConnection, frame: HubFrame): void {
    handleHubFrame(this, conn, frame);
  }

  /** @internal {@link ConnectionSink}: the socket is gone. */
  closed(conn: RelayServerConnection): void {
    this.conns.delete(conn);
    if (this.closing || !conn.host) return;
    this.requests.lose({ conn }, 'socket');
    for (const s of this.sessions.ofConnection(conn)) {
      s.conn = null;
      s.disconnectedAt = this.now();
      s.graceTimer = setTimeout(() => this.closeSession(s, true), this.timing.disconnectGraceMs);
      s.graceTimer.unref();
      this.sessionEvents.updated(s.sessionId);
    }
    this.logger.info('relay socket closed', { conn: conn.id, hostId: conn.host.hostId });
  }

  /** @internal Sends a session its attachments list. */
  sendAttachments(session: SessionRecord): void {
    const frame: z.infer<typeof AttachmentsFrameSchema> = {
      t: 'attachments',
      sessionId: session.sessionId,
      list: this.attachments.summariesFor(session.hostId),
    };
    session.conn?.send(frame);
  }

  /** @internal Closes a session for good; in-flight requests resolve as lost. */
  closeSession(session: SessionRecord, announce: boolean): void {
    this.requests.lose({ session }, 'session-closed');
    this.sessions.close(session);
    this.logger.info('session closed', { sessionId: session.sessionId, hostId: session.hostId });
    if (announce) this.sessionEvents.changed();
  }

  /** @internal A frame that names something this socket does not own (SPEC §9). */
  foreign(conn: RelayServerConnection, what: string): void {
    this.logger.warn('foreign relay frame', { conn: conn.id, frame: what, hostId: conn.host?.hostId });
    conn.close(CLOSE_CODES.malformed, 'foreign frame');
  }

  /** Ends an attachment (its MCP connection closed): every page hears `attachment.ended`. */
  private endAttachment(attachmentId: string): void {
    if (!this.attachments.remove(attachmentId)) return;
    this.logger.info('detached', { attachmentId });
    for (const conn of this.conns) if (conn.host) conn.send({ t: 'attachment.ended', attachmentId });
    this.attachmentsChanged();
  }

  /**
   * @internal The person at a tab of `hostId` pressed "detach" (SPEC §2): the
   * attachment's use of that host's sessions ends (their pages hear
   * `attachment.ended`, so its subscriptions there stop with
   * `attachment-detached`); its use of other hosts' sessions goes on.
   */
  detachFromHost(attachmentId: string, hostId: string): void {
    if (!this.attachments.detachFromHost(attachmentId, hostId)) return;
    this.logger.info('detached by the person', { attachmentId, hostId });
    this.events.emit('attachmentDetached', attachmentId, hostId);
    for (const conn of this.conns) if (conn.host?.hostId === hostId) conn.send({ t: 'attachment.ended', attachmentId });
    for (const s of this.sessions.ofHost(hostId)) {
      this.sendAttachments(s);
      this.sessionEvents.updated(s.sessionId);
    }
  }

  private attachmentsChanged(): void {
    for (const s of this.sessions.all()) {
      this.sendAttachments(s);
      this.sessionEvents.updated(s.sessionId);
    }
  }
}
