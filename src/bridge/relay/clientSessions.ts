/**
 * The sessions one relay connection carries (SPEC §2). A page opens one; the
 * extension's service worker opens one per tab on the same socket, so nothing
 * here assumes a single session.
 */
import {
  SessionOpenFrameSchema,
  SessionUpdateFrameSchema,
  type AttachmentSummary,
  type BrowserFrame,
  type CatalogDocument,
  type Environment,
  type RequestFrame,
  type ServerFrame,
  type SessionInfo,
} from '../../protocol/index.js';
import type { RelayOutcome } from './clientFrames.js';

/** What a request handler receives besides the request. */
export interface HandlerHooks {
  /** Aborted on `cancel`, or when the socket that carried the request is gone (made when first read). */
  readonly signal: AbortSignal;
  /** Calls `listener` once on `cancel` or when the socket is gone, without making the signal. */
  onAbort(listener: () => void): void;
  progress(progress: number, total?: number): void;
}

/** What a request handler answers. */
export interface HandlerResult {
  environment: Environment | null;
  outcome: RelayOutcome;
}

/** Runs one request of a session. Should not throw; a throw becomes `internal_error`. */
export type RequestHandler = (request: RequestFrame, hooks: HandlerHooks) => Promise<HandlerResult>;

/** How one session stands. */
export interface SessionStatus {
  /** The kept id, once the server assigned one. */
  sessionId: string | null;
  /** True between `session.opened` and the socket's end. */
  open: boolean;
  attachments: AttachmentSummary[];
  /** Why the session is not open, for the person. */
  message: string | null;
}

/** Options of one session. */
export interface SessionOptions {
  /** The id this tab kept (sessionStorage, or the extension's per-tab state). */
  sessionId?: string | null;
  /** The tab's site origin; only the extension names one. */
  origin?: string;
  info: SessionInfo;
  catalog: CatalogDocument;
  handler: RequestHandler;
  onChange?: (status: SessionStatus) => void;
  /** An `attachments` frame listed the MCP attachments now using the session (not a disconnect's empty list). */
  onAttachments?: (attachmentIds: string[]) => void;
}

/** One session on a relay connection. */
export interface RelaySession {
  status(): SessionStatus;
  /** Sends new info (and catalog) now if open, else with the next open. */
  update(info: SessionInfo, catalog?: CatalogDocument): void;
  /** Ends every MCP attachment using this session, or one. */
  detach(attachmentId?: string): void;
  /** The tab is going away: `session.close`, and the session is forgotten. */
  close(): void;
}

/** What the registry needs of its connection. */
export interface SessionLink {
  /** Sends on the live, welcomed socket; false when there is none. */
  send(frame: BrowserFrame): boolean;
}

const INVALID_SESSION_MESSAGE =
  'This page’s session does not fit the relay protocol (title up to 200 characters, at most 2000 controls and 256 channels).';

/** One session's state. */
class SessionSlot implements RelaySession {
  sessionId: string | null;
  open = false;
  attachments: AttachmentSummary[] = [];
  message: string | null = null;
  pendingRef: string | null = null;
  /** A refused kept id is retried once as a new session (server restart, duplicated tab). */
  retriedFresh = false;

  constructor(
    private readonly registry: ClientSessions,
    readonly options: SessionOptions,
  ) {
    this.sessionId = options.sessionId ?? null;
  }

  status(): SessionStatus {
    return { sessionId: this.sessionId, open: this.open, attachments: [...this.attachments], message: this.message };
  }

  update(info: SessionInfo, catalog?: CatalogDocument): void {
    this.options.info = info;
    if (catalog) this.options.catalog = catalog;
    if (!this.open || this.sessionId === null) return;
    const frame = { t: 'session.update' as const, sessionId: this.sessionId, info, catalog };
    if (SessionUpdateFrameSchema.safeParse(frame).success) this.registry.link.send(frame);
    else this.changed({ message: INVALID_SESSION_MESSAGE });
  }

  detach(attachmentId?: string): void {
    if (!this.open || this.sessionId === null) return;
    this.registry.link.send({ t: 'detach', sessionId: this.sessionId, attachmentId });
  }

  close(): void {
    if (this.open && this.sessionId !== null)
      this.registry.link.send({ t: 'session.close', sessionId: this.sessionId });
    this.open = false;
    this.registry.forget(this);
  }

  sendOpen(ref: string): void {
    const { info, catalog, origin } = this.options;
    const frame = { t: 'session.open' as const, ref, sessionId: this.sessionId ?? undefined, origin, info, catalog };
    if (!SessionOpenFrameSchema.safeParse(frame).success) return this.changed({ message: INVALID_SESSION_MESSAGE });
    this.pendingRef = ref;
    this.registry.link.send(frame);
  }

  changed(patch: Partial<Pick<SessionSlot, 'sessionId' | 'open' | 'attachments' | 'message'>>): void {
    Object.assign(this, patch);
    this.options.onChange?.(this.status());
  }
}

/** The sessions of one connection, and the frames that concern them. */
export class ClientSessions {
  private readonly slots = new Set<SessionSlot>();
  private nextRef = 0;

  constructor(readonly link: SessionLink) {}

  /** Adds a session; it opens now if the socket is welcomed, else after the next `welcome`. */
  add(options: SessionOptions, welcomed: boolean): RelaySession {
    const slot = new SessionSlot(this, options);
    this.slots.add(slot);
    if (welcomed) slot.sendOpen(this.ref());
    return slot;
  }

  /** After `welcome`: (re)opens every session, with its kept id. */
  openAll(): void {
    for (const slot of this.slots) slot.sendOpen(this.ref());
  }

  /** The socket is gone: nothing is open until the next `session.opened`. */
  disconnected(): void {
    for (const slot of this.slots) {
      slot.pendingRef = null;
      if (slot.open || slot.attachments.length > 0) slot.changed({ open: false, attachments: [] });
    }
  }

  /** The open session with this id, if any. */
  find(sessionId: string): SessionSlot | undefined {
    for (const slot of this.slots) if (slot.open && slot.sessionId === sessionId) return slot;
    return undefined;
  }

  /** Sends `session.close` for every open session and forgets them all. */
  closeAll(): void {
    for (const slot of [...this.slots]) slot.close();
  }

  /** Applies a session frame; one naming no session of ours (closed meanwhile) is ignored. */
  apply(frame: Extract<ServerFrame, { t: 'session.opened' | 'session.refused' | 'attachments' }>): void {
    if (frame.t === 'attachments') {
      const slot = this.find(frame.sessionId);
      slot?.changed({ attachments: frame.list });
      return slot?.options.onAttachments?.(frame.list.map((a) => a.attachmentId));
    }
    const slot = [...this.slots].find((s) => s.pendingRef === frame.ref);
    if (!slot) return;
    slot.pendingRef = null;
    if (frame.t === 'session.opened') return slot.changed({ sessionId: frame.sessionId, open: true, message: null });
    if (slot.sessionId !== null && !slot.retriedFresh) {
      slot.retriedFresh = true;
      slot.sessionId = null;
      return slot.sendOpen(this.ref());
    }
    slot.changed({ message: frame.message });
  }

  /** Called by a slot that closed. */
  forget(slot: SessionSlot): void {
    this.slots.delete(slot);
  }

  private ref(): string {
    return `s${++this.nextRef}`;
  }
}
