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
import {
  RelayLimitsSchema,
  type ContextFrame,
  type RelayLimits,
  type RequestFrame,
  type RequestRefFrame,
} from './relay.js';

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
   * context beyond the window is dropped and handed to `dropped`.
   */
  hold(key: number, context: CallContext, dropped?: (key: number, context: CallContext) => void): boolean {
    if (!(key > this.last)) return false;
    this.last = key;
    this.held.set(key, context);
    if (this.held.size > CALL_CONTEXTS_KEPT) {
      const [oldKey, oldContext] = this.held.entries().next().value as [number, CallContext];
      this.held.delete(oldKey);
      dropped?.(oldKey, oldContext);
    }
    return true;
  }

  /** The context held under `key`, if any. */
  get(key: number): CallContext | undefined {
    return this.held.get(key);
  }

  /** The key the next new context takes. */
  get nextKey(): number {
    return this.last + 1;
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

const LIMIT_KEYS = Object.keys(RelayLimitsSchema.shape) as (keyof RelayLimits)[];

function sameControls(a: readonly string[] | null, b: readonly string[] | null): boolean {
  if (a === b) return true;
  if (a === null || b === null || a.length !== b.length) return false;
  return a.every((pattern, i) => pattern === b[i]);
}

function sameLimits(a: RelayLimits, b: RelayLimits): boolean {
  return a === b || LIMIT_KEYS.every((key) => a[key] === b[key]);
}

/** Whether two call contexts say the same (a context frame is sent again only when not). */
export function sameCallContext(a: CallContext, b: CallContext): boolean {
  return (
    (a.attachment === b.attachment ||
      (a.attachment.attachmentId === b.attachment.attachmentId &&
        a.attachment.namespace === b.attachment.namespace &&
        a.attachment.clientName === b.attachment.clientName)) &&
    (a.adapter === b.adapter ||
      (a.adapter.maxAccess === b.adapter.maxAccess &&
        sameControls(a.adapter.allowControls, b.adapter.allowControls))) &&
    sameLimits(a.limits, b.limits)
  );
}
