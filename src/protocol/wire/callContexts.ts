/**
 * Call contexts (SPEC §9, issue 15): on a socket that negotiated
 * `RELAY_CONTEXT_SUBPROTOCOL`, what every request of one attachment
 * carries unchanged (who asks, the adapter maximum, the limits: about 60 % of
 * a call's request frame) travels once, as a `context` frame under a new key,
 * and each request names that key (`request.ref`). Both ends keep the same
 * window of the last {@link CALL_CONTEXTS_KEPT} keys by the rule here, so the
 * server knows which keys the page holds; the page checks each context frame
 * against the same schemas a full request frame is checked against, refuses a
 * key that is not new, and refuses a request naming a key it does not hold.
 * The request the page acts on is the full request frame, as before.
 */
import type { ContextFrame, RequestFrame, RequestRefFrame } from './relay.js';

/** How many call contexts each end of a socket keeps (the newest; the oldest goes first). */
export const CALL_CONTEXTS_KEPT = 64;

/** What a request frame carries unchanged for one attachment. */
export type CallContext = Pick<RequestFrame, 'attachment' | 'adapter' | 'limits'>;

/** The call contexts one end of a socket holds: the newest {@link CALL_CONTEXTS_KEPT}, by key. */
export class CallContextWindow {
  private readonly held = new Map<number, CallContext>();
  private last = -1;

  /**
   * Holds `context` under `key`, which must be greater than every key held
   * before on this socket (false, and nothing held, when it is not). The oldest
   * context beyond the window is dropped.
   */
  hold(key: number, context: CallContext): boolean {
    if (!(key > this.last)) return false;
    this.last = key;
    this.held.set(key, context);
    if (this.held.size > CALL_CONTEXTS_KEPT) this.held.delete(this.held.keys().next().value as number);
    return true;
  }

  /** The context held under `key`, if any. */
  get(key: number): CallContext | undefined {
    return this.held.get(key);
  }
}

/** The `context` frame that sends `context` under `key`. */
export function contextFrame(key: number, context: CallContext): ContextFrame {
  return { t: 'context', key, attachment: context.attachment, adapter: context.adapter, limits: context.limits };
}

/** The context a `context` frame sends. */
export function contextOf(frame: ContextFrame | RequestFrame): CallContext {
  return { attachment: frame.attachment, adapter: frame.adapter, limits: frame.limits };
}

/** `request` naming the context `key` instead of carrying it. */
export function requestRef(request: RequestFrame, key: number): RequestRefFrame {
  return {
    t: 'request.ref',
    id: request.id,
    sessionId: request.sessionId,
    context: key,
    deadlineMs: request.deadlineMs,
    op: request.op,
  };
}

/** The full request a `request.ref` frame stands for, given the context it names. */
export function requestWithContext(ref: RequestRefFrame, context: CallContext): RequestFrame {
  return {
    t: 'request',
    id: ref.id,
    sessionId: ref.sessionId,
    attachment: context.attachment,
    adapter: context.adapter,
    limits: context.limits,
    deadlineMs: ref.deadlineMs,
    op: ref.op,
  };
}
