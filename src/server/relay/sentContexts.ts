/**
 * The server end of call contexts (`callContexts.ts`, SPEC §9): per socket,
 * which context each attachment's requests name, sending a new one (under a
 * new key) before the first request that needs it and whenever what it says
 * changes. It holds the same window of keys as the page, by the same rule, so
 * it never names a key the page has dropped.
 */
import {
  CALL_CONTEXTS_KEPT,
  CallContextWindow,
  RelayLimitsSchema,
  contextFrame,
  contextOf,
  requestRef,
  type CallContext,
  type RelayLimits,
  type RequestFrame,
  type ServerFrame,
} from '../../protocol/index.js';

/** The call contexts one socket has sent. */
export class SentContexts {
  private readonly window = new CallContextWindow();
  /** Attachment id → the newest key sent for it, while the page holds it. */
  private readonly keyOf = new Map<string, number>();
  /** Key → the attachment it was sent for, for the keys the page holds. */
  private readonly attachmentOf = new Map<number, string>();
  private next = 0;

  /** The frames that carry `request`: its context first when the page does not hold it, then the request naming it. */
  frames(request: RequestFrame): ServerFrame[] {
    const id = request.attachment.attachmentId;
    const key = this.keyOf.get(id);
    const held = key === undefined ? undefined : this.window.get(key);
    if (key !== undefined && held !== undefined && sameCallContext(held, request)) return [requestRef(request, key)];
    const next = this.next++;
    const context = contextOf(request);
    this.window.hold(next, context);
    this.keyOf.set(id, next);
    this.attachmentOf.set(next, id);
    this.forget(next - CALL_CONTEXTS_KEPT);
    return [contextFrame(next, context), requestRef(request, next)];
  }

  /** The page's window dropped `key` (keys go up by one, so the one 64 below the newest). */
  private forget(key: number): void {
    const id = this.attachmentOf.get(key);
    if (id === undefined) return;
    this.attachmentOf.delete(key);
    if (this.keyOf.get(id) === key) this.keyOf.delete(id);
  }
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
