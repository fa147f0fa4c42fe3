/**
 * Sessions (SPEC §2): one per terminal tab, under an opaque id the server
 * chooses and the tab keeps. An id is bound to the host that opened it: the
 * same host reconnecting keeps it, any other host gets a fresh one. Closed ids
 * are remembered (bounded) so a request to one says `session_closed`.
 */
import {
  MAX_LISTED_SESSIONS,
  sessionContextUri,
  type AttachmentSummary,
  type SessionInfo,
  type SessionSummary,
} from '../../protocol/index.js';
import type { RelayServerConnection } from '../relay/relayServerConnection.js';
import type { IndexedCatalog } from './rules/catalogIndex.js';
import { randomId, SESSION_ID_PATTERN } from './ids.js';

const TOMBSTONES_KEPT = 1024;

/** One session as the hub keeps it. */
export interface SessionRecord {
  readonly sessionId: string;
  readonly hostId: string;
  origin: string;
  hostKind: 'page' | 'extension';
  info: SessionInfo;
  /** What the tab declared (at most `catalogBytes` of JSON), indexed for the catalog resource. */
  vocabulary: IndexedCatalog;
  readonly openedAt: string;
  /** The owning socket; null while the tab is away but may come back. */
  conn: RelayServerConnection | null;
  /** Closes the session when its tab stays away too long. */
  graceTimer: NodeJS.Timeout | null;
  /** Epoch ms when its socket went away; null while connected. */
  disconnectedAt: number | null;
}

/** Where a session id stands. */
export type SessionLookup = { kind: 'live'; session: SessionRecord } | { kind: 'closed' } | { kind: 'unknown' };

/** The sessions of one hub. */
export class HubSessions {
  private readonly live = new Map<string, SessionRecord>();
  private readonly closed = new Map<string, string>();
  private readonly waiters = new Map<string, Set<() => void>>();

  /**
   * The id a `session.open` gets: the kept one when this host may have it
   * (not owned by another host, not live on another socket), else a fresh one.
   */
  chooseId(kept: string | undefined, hostId: string, conn: RelayServerConnection): string {
    if (kept === undefined) return randomId('s');
    const live = this.live.get(kept);
    if (live) return live.hostId === hostId && (live.conn === null || live.conn === conn) ? kept : randomId('s');
    const closedBy = this.closed.get(kept);
    if (closedBy !== undefined) return closedBy === hostId ? kept : randomId('s');
    return SESSION_ID_PATTERN.test(kept) ? kept : randomId('s');
  }

  lookup(sessionId: string): SessionLookup {
    const session = this.live.get(sessionId);
    if (session) return { kind: 'live', session };
    return this.closed.has(sessionId) ? { kind: 'closed' } : { kind: 'unknown' };
  }

  get(sessionId: string): SessionRecord | undefined {
    return this.live.get(sessionId);
  }

  /** Adds a new (or reopened) session. */
  add(record: SessionRecord): void {
    this.closed.delete(record.sessionId);
    this.live.set(record.sessionId, record);
    this.wake(record.sessionId);
  }

  /** A disconnected session's tab is back on `conn`. */
  reconnect(session: SessionRecord, conn: RelayServerConnection): void {
    session.conn = conn;
    session.disconnectedAt = null;
    if (session.graceTimer) clearTimeout(session.graceTimer);
    session.graceTimer = null;
    this.wake(session.sessionId);
  }

  /** Closes a session for good: its id answers `session_closed` from now on. */
  close(session: SessionRecord): void {
    if (session.graceTimer) clearTimeout(session.graceTimer);
    session.graceTimer = null;
    session.conn = null;
    this.live.delete(session.sessionId);
    this.closed.set(session.sessionId, session.hostId);
    if (this.closed.size > TOMBSTONES_KEPT) this.closed.delete(this.closed.keys().next().value as string);
    this.wake(session.sessionId);
  }

  /** Live sessions owned by one socket. */
  ofConnection(conn: RelayServerConnection): SessionRecord[] {
    return [...this.live.values()].filter((s) => s.conn === conn);
  }

  /** Live sessions of one host, connected or not. */
  ofHost(hostId: string): SessionRecord[] {
    return [...this.live.values()].filter((s) => s.hostId === hostId);
  }

  all(): SessionRecord[] {
    return [...this.live.values()];
  }

  /**
   * Resolves true once the session has a socket again, false when it closes,
   * the wait ends or `signal` aborts.
   */
  waitForConnection(sessionId: string, ms: number, signal?: AbortSignal): Promise<boolean> {
    return new Promise((resolve) => {
      const set = this.waiters.get(sessionId) ?? new Set<() => void>();
      this.waiters.set(sessionId, set);
      const done = () => {
        clearTimeout(timer);
        set.delete(done);
        if (set.size === 0 && this.waiters.get(sessionId) === set) this.waiters.delete(sessionId);
        signal?.removeEventListener('abort', done);
        resolve(this.live.get(sessionId)?.conn != null);
      };
      const timer = setTimeout(done, ms);
      timer.unref();
      set.add(done);
      signal?.addEventListener('abort', done, { once: true });
    });
  }

  /** Bounded summaries, oldest first. */
  summaries(attachmentsOf: (hostId: string) => AttachmentSummary[]): SessionSummary[] {
    return [...this.live.values()].slice(0, MAX_LISTED_SESSIONS).map((s) => ({
      sessionId: s.sessionId,
      title: s.info.title,
      origin: s.origin,
      hostKind: s.hostKind,
      environment: s.info.environment ?? null,
      grant: s.info.grant ?? null,
      connected: s.conn !== null,
      openedAt: s.openedAt,
      contextUri: sessionContextUri(s.sessionId),
      attachments: attachmentsOf(s.hostId),
    }));
  }

  private wake(sessionId: string): void {
    const set = this.waiters.get(sessionId);
    if (!set) return;
    this.waiters.delete(sessionId);
    for (const w of [...set]) w();
  }
}
