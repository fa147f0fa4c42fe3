/**
 * The bridge's end of the host-call link with requests (`hostLink.ts` in
 * src/protocol): what `BridgeHostLink` asks (bindings, captures, locations),
 * and the host SDK requests with their cancellation and progress, for the
 * extension's service worker, whose requests run in the page over the link.
 * It is the `HostCalls` of the host router there. A call's hooks (its abort
 * signal and progress sink) live in its entry of the pending table, the only
 * per-call state; when the link closes every pending call settles.
 */
import type { HostLinkScope } from '../../protocol/wire/hostLink.js';
import type { SessionOutcome, SessionRequest } from '../../sdk/types.js';
import { BridgeHostLink, type BridgeHostLinkOptions, type CallReply } from './bridgeHostLink.js';
import { CallScopes } from './callScopes.js';
import type { CallHooks, HostCalls } from './hostRouter.js';

/** A call in flight: its resolver, its hooks, and (as an abort listener) its cancellation. */
class PendingCall {
  /** True while it listens on `hooks.signal` (a caller without `onAbort`). */
  listening = false;

  constructor(
    readonly link: { cancel(id: string): void },
    readonly id: string,
    readonly resolve: (outcome: SessionOutcome) => void,
    readonly hooks: CallHooks,
    readonly expiresAt: number,
  ) {}

  /** The caller's signal aborted: the page's signal aborts too (a dispatched mutation still runs on). */
  handleEvent(): void {
    this.link.cancel(this.id);
  }
}

/** The bridge's calls and asks into one page. */
export class BridgeCallLink<Other extends { t: string } = never> extends BridgeHostLink<Other> implements HostCalls {
  private readonly calls = new Map<string, PendingCall>();
  private readonly scopes: CallScopes;

  constructor(options: BridgeHostLinkOptions<Other>) {
    super(options);
    this.scopes = new CallScopes({
      define: (key, scope: HostLinkScope) => this.post({ t: 'scope', key, scope }),
      drop: (key) => this.post({ t: 'drop', key }),
    });
  }

  handle(request: SessionRequest, hooks: CallHooks = {}): Promise<SessionOutcome> {
    if (this.closed || this.calls.has(request.id)) return Promise.resolve(this.unanswered());
    const { id, sessionId, attachment, adapter, limits, deadlineMs, op } = request;
    const key = this.scopes.keyOf({ sessionId, attachment, adapter, limits });
    const expiresAt = this.options.timeouts ? this.now() + deadlineMs + this.options.timeouts.graceMs : Infinity;
    return new Promise((resolve) => {
      const entry = new PendingCall(this, id, resolve, hooks, expiresAt);
      this.calls.set(id, entry);
      if (hooks.onAbort) hooks.onAbort(() => entry.handleEvent());
      else if (hooks.signal) {
        hooks.signal.addEventListener('abort', entry, { once: true });
        entry.listening = true;
      }
      this.watch(expiresAt);
      if (!this.post({ t: 'call', id, key, deadlineMs, op })) this.settle(id, this.unanswered());
    });
  }

  cancel(requestId: string): void {
    if (this.calls.has(requestId)) this.post({ t: 'cancel', id: requestId });
  }

  /** The attachment ended: the page forgets its scope. */
  attachmentEnded(attachmentId: string): void {
    this.scopes.forget(attachmentId);
  }

  override get waiting(): number {
    return this.calls.size + super.waiting;
  }

  override abandon(): void {
    for (const id of [...this.calls.keys()]) this.settle(id, this.unanswered());
    super.abandon();
  }

  protected override reply(message: CallReply): void {
    if (message.t === 'result') return this.settle(message.id, message.outcome);
    this.calls.get(message.id)?.hooks.progress?.(message.progress, message.total);
  }

  protected override expire(now: number): boolean {
    let left = false;
    for (const [id, entry] of this.calls) {
      if (entry.expiresAt <= now) this.settle(id, this.unanswered());
      else left ||= entry.expiresAt !== Infinity;
    }
    return super.expire(now) || left;
  }

  private settle(id: string, outcome: SessionOutcome): void {
    const entry = this.calls.get(id);
    if (!entry) return;
    this.calls.delete(id);
    if (entry.listening) entry.hooks.signal?.removeEventListener('abort', entry);
    entry.resolve(outcome);
  }
}
