/**
 * The call port between the bridge worker and the page (SPEC §1, §12): the
 * requests the host SDK runs on the main thread travel on a dedicated
 * MessagePort as plain messages, not through comlink. What stays the same
 * for every call of one attachment (session, attachment, adapter maximum,
 * limits) crosses once as a numbered scope; each call then carries only its
 * id, scope key, deadline and operation. One port keeps the order, so a scope
 * always arrives before the calls that name it, and a `drop` after them.
 */
import type { AdapterMaximum, RelayLimits, RequestAttachment } from '../protocol/index.js';
import type { SessionOutcome, SessionRequest } from '../sdk/types.js';

/** What the calls of one attachment share. */
export interface CallScope {
  sessionId: string;
  attachment: RequestAttachment;
  adapter: AdapterMaximum;
  limits: RelayLimits;
}

/** Worker → page. */
export type CallPortRequest =
  /** Names a scope; later calls refer to it by `key`. */
  | { t: 'scope'; key: number; scope: CallScope }
  | { t: 'call'; id: string; key: number; deadlineMs: number; op: SessionRequest['op'] }
  /** Aborts that call's signal (a dispatched mutation still runs to its outcome). */
  | { t: 'cancel'; id: string }
  /** No call names this scope any more. */
  | { t: 'drop'; key: number };

/** Page → worker. */
export type CallPortAnswer =
  | { t: 'result'; id: string; outcome: SessionOutcome }
  | { t: 'progress'; id: string; progress: number; total?: number };

/** One end of the call port: a MessagePort, or anything shaped like one in tests. */
export interface CallPortEnd<Out> {
  postMessage(message: Out): void;
  addEventListener(type: 'message', listener: (event: { data: unknown }) => void): void;
  removeEventListener?(type: 'message', listener: (event: { data: unknown }) => void): void;
  start?(): void;
  close?(): void;
}

/** The scope a request runs in. */
export function scopeOf(request: SessionRequest): CallScope {
  const { sessionId, attachment, adapter, limits } = request;
  return { sessionId, attachment, adapter, limits };
}
