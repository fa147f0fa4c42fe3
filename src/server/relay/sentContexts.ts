/**
 * The server end of call contexts (`callContexts.ts`, SPEC §9): per socket,
 * which context each attachment's requests name, sending a new one (under a
 * new key) before the first request that needs it and whenever what it says
 * changes. It holds the same window of keys as the page, by the same rule, so
 * it never names a key the page has dropped.
 */
import {
  CallContextWindow,
  contextFrame,
  contextOf,
  requestRef,
  sameCallContext,
  type CallContext,
  type RequestFrame,
  type ServerFrame,
} from '../../protocol/index.js';

/** The call contexts one socket has sent. */
export class SentContexts {
  private readonly window = new CallContextWindow();
  /** Attachment id → the newest key sent for it, while the page holds it. */
  private readonly keyOf = new Map<string, number>();

  /** The frames that carry `request`: its context first when the page does not hold it, then the request naming it. */
  frames(request: RequestFrame): ServerFrame[] {
    const id = request.attachment.attachmentId;
    const key = this.keyOf.get(id);
    const held = key === undefined ? undefined : this.window.get(key);
    if (key !== undefined && held !== undefined && sameCallContext(held, request)) return [requestRef(request, key)];
    const next = this.window.nextKey;
    const context = contextOf(request);
    this.window.hold(next, context, (dropped, was) => this.forget(dropped, was));
    this.keyOf.set(id, next);
    return [contextFrame(next, context), requestRef(request, next)];
  }

  private forget(key: number, context: CallContext): void {
    const id = context.attachment.attachmentId;
    if (this.keyOf.get(id) === key) this.keyOf.delete(id);
  }
}
