/**
 * The seam between an MCP front (one process's MCP server with its own flags)
 * and the hub that owns sessions and the relay. In one process the hub is
 * called directly; several processes may share one hub over a socket, each
 * front enforcing its own flags (SPEC §9).
 */
import type {
  AdapterMaximum,
  AttachmentSummary,
  BatchData,
  CallReceipt,
  CatalogResource,
  Environment,
  ErrorObject,
  Operation,
  RelayLimits,
  SessionSummary,
} from '../../protocol/index.js';

/** One MCP client connection as the hub knows it. */
export interface AttachmentHandle {
  readonly attachmentId: string;
  /** Opaque operation namespace handed to the SDK with every call. */
  readonly namespace: string;
}

/** What an attachment reports about itself. */
export interface AttachmentInfo {
  clientName: string;
  transport: AttachmentSummary['transport'];
}

/** Options of one request to a session. */
export interface HubRequestOptions {
  adapter: AdapterMaximum;
  limits: RelayLimits;
  deadlineMs: number;
  /** The MCP client cancelled: a read is abandoned, a dispatched mutation runs on. */
  signal?: AbortSignal;
  onProgress?: (progress: number, total?: number) => void;
}

/** The answer of a session, with the environment it reported. */
export type HubOutcome =
  | { ok: true; data: unknown; image?: { mimeType: string; base64: string }; environment: Environment | null }
  | { ok: false; error: ErrorObject; environment: Environment | null };

/**
 * Answers this process's hub has already read against their schema (a call's
 * receipt, a batch's data) and held to the limits (`answerLimits`). A front in
 * the same process takes them as read instead of parsing the same answer a
 * second time on this side of the relay; an answer that crossed the hub link
 * is a new object, and is read again.
 */
const readAnswers = new WeakSet<object>();

/** Notes `data` as read against its schema by this process's hub; returns it. */
export function markRead<T extends CallReceipt | BatchData>(data: T): T {
  readAnswers.add(data);
  return data;
}

/** Whether `data` is an answer this process's hub has read (see {@link markRead}). */
export function wasRead(data: unknown): boolean {
  return typeof data === 'object' && data !== null && readAnswers.has(data);
}

/** Events the hub emits to fronts. */
export interface HubEvents {
  /** A session paired or closed (resources/list_changed). */
  sessionsChanged(): void;
  /** A session's summary changed (resources/updated for tradescript://sessions). */
  sessionUpdated(sessionId: string): void;
  /** This attachment ended for good (a front that followed the hub could not resume it). */
  attachmentEnded(attachmentId: string): void;
  /** The person at a tab of `hostId` ended this attachment's use of that host ("detach all", SPEC §2). */
  attachmentDetached(attachmentId: string, hostId: string): void;
}

/** What an MCP front needs from the hub. */
export interface HubPort {
  attach(info: AttachmentInfo): Promise<AttachmentHandle>;
  /**
   * Registers an attachment under a kept id and namespace: a front that
   * followed the hub to a new process, or a stateless HTTP client whose handle
   * derives them (docs/protocolRevisions.md). Null when the hub refuses: the
   * id is live already, or the person ended it.
   */
  resume(kept: AttachmentHandle, info: AttachmentInfo): Promise<AttachmentHandle | null> | AttachmentHandle | null;
  detach(attachmentId: string): Promise<void>;
  /** Bounded summaries of paired sessions. */
  listSessions(): Promise<SessionSummary[]>;
  /**
   * The installed control and channel vocabulary: the union of what connected
   * sessions declared, identical declarations merged (documentation, not
   * authorization), within `maxBytes` of JSON (`truncated` and `total` say
   * what did not fit).
   */
  catalog(maxBytes: number): Promise<CatalogResource>;
  /**
   * Sends one operation to a session's tab and resolves with its outcome. Never
   * rejects: routing failures (`session_not_found`, `session_closed`), deadline
   * and socket loss come back as errors, a mutation lost after dispatch as
   * `uncertain_execution`.
   */
  request(attachmentId: string, sessionId: string, op: Operation, options: HubRequestOptions): Promise<HubOutcome>;
  /** Subscribes to hub events; returns the unsubscribe function. */
  on<E extends keyof HubEvents>(event: E, listener: HubEvents[E]): () => void;
}
