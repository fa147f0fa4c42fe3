/**
 * The bridge's end of the host-call link (`hostLink.ts` in src/protocol): in
 * the page's worker and in the extension's service worker alike, what the
 * bridge asks of the page's host SDK — requests with their cancellation and
 * progress, binding starts and stops, captures, locations — as messages with
 * ids, and the page's answers matched back to them. It is the `HostCalls` of
 * the host router and the `ObservePort` of the worker observer. A call's
 * hooks (its abort signal and progress sink) live in its entry of the pending
 * table, the only per-call state; when the link closes every pending call
 * settles.
 */
import * as z from 'zod/mini';
import {
  HostLinkAnswerSchema,
  type HostLinkAnswer,
  type HostLinkCall,
  type HostLinkScope,
  type LinkView,
} from '../../protocol/wire/hostLink.js';
import type { ErrorObject, Target } from '../../protocol/index.js';
import type {
  BindingRequest,
  BindingStart,
  CaptureOptions,
  CaptureOutcome,
  SessionOutcome,
  SessionRequest,
} from '../../sdk/types.js';
import { CallScopes } from './callScopes.js';
import type { CallHooks, HostCalls } from './hostRouter.js';
import type { LinkCodec } from './linkCodecs.js';
import type { LinkEndpoint } from './linkEndpoint.js';
import type { ObservePort } from '../observe/observeTypes.js';

type Answer = Extract<HostLinkAnswer, { t: 'bindingStarted' | 'captured' | 'located' }>;
type Reply = Extract<HostLinkAnswer, { t: 'result' | 'progress' }> | Answer;
/** What the page sends besides answers: binding events (and, in the extension, its session). */
export type PageNotice = Exclude<HostLinkAnswer, Reply>;

const REPLY_KINDS: ReadonlySet<string> = new Set(['result', 'progress', 'bindingStarted', 'captured', 'located']);

function isReply(message: { t: string }): message is Reply {
  return REPLY_KINDS.has(message.t);
}

/** How long the page may take, where the link must not wait forever (the extension's tabs come and go). */
export interface AnswerTimeouts {
  /** How long past its deadline a request waits (the server has answered it by then). */
  graceMs: number;
  /** How long a binding start, capture or locate waits. */
  askMs: number;
}

/** What one end of the link is built from. */
export interface BridgeHostLinkOptions<Other extends { t: string }> {
  endpoint: LinkEndpoint;
  codec: LinkCodec;
  /** What arrives is parsed against this: the link's answers, or those and a deployment's own messages. */
  inbound?: z.ZodMiniType<HostLinkAnswer | Other>;
  /** Messages that are not replies: binding events, and in the extension the page's session. */
  onNotice(message: PageNotice | Other): void;
  /** The outcome of a call the page never answered (the link closed, or an answer timed out). */
  unanswered: ErrorObject;
  timeouts?: AnswerTimeouts;
  now?: () => number;
}

/** How often unanswered entries are looked at, when answers time out. */
const SWEEP_MS = 1_000;

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

interface PendingAsk {
  resolve(answer: Answer | null): void;
  expiresAt: number;
}

/** The bridge's calls into one page. */
export class BridgeHostLink<Other extends { t: string } = never> implements HostCalls, ObservePort {
  private readonly calls = new Map<string, PendingCall>();
  private readonly asks = new Map<string, PendingAsk>();
  private readonly scopes: CallScopes;
  private readonly inbound: z.ZodMiniType<HostLinkAnswer | Other>;
  private readonly now: () => number;
  private sweeper: ReturnType<typeof setInterval> | null = null;
  private nextAsk = 0;
  private closed = false;

  constructor(private readonly options: BridgeHostLinkOptions<Other>) {
    this.inbound = options.inbound ?? HostLinkAnswerSchema;
    this.now = options.now ?? Date.now;
    this.scopes = new CallScopes({
      define: (key, scope: HostLinkScope) => this.post({ t: 'scope', key, scope }),
      drop: (key) => this.post({ t: 'drop', key }),
    });
    options.endpoint.onmessage = (data) => this.receive(data);
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

  async startBinding(request: BindingRequest, handle: number): Promise<BindingStart> {
    const answer = await this.ask((id) => ({ t: 'startBinding', id, handle, request }));
    return answer?.t === 'bindingStarted' ? answer.outcome : { ok: false, error: this.options.unanswered };
  }

  stopBinding(subscriptionId: string, bindingId: string): void {
    this.post({ t: 'stopBinding', subscriptionId, bindingId });
  }

  /** The host SDK's capture on the page, read back by the codec. */
  async capture(target: Target, options: CaptureOptions): Promise<CaptureOutcome> {
    const maxPixels = Math.max(1, Math.floor(options.maxPixels));
    const answer = await this.ask((id) => ({ t: 'capture', id, target, maxPixels }));
    const outcome = answer?.t === 'captured' ? await this.options.codec.decodeCapture(answer.outcome) : null;
    return outcome ?? { ok: false, error: this.options.unanswered };
  }

  /** Where the page shows a target now, when it says. */
  async locate(target: Target): Promise<LinkView | null> {
    const answer = await this.ask((id) => ({ t: 'locate', id, target }));
    return answer?.t === 'located' ? answer.view : null;
  }

  /** The attachment ended: the page forgets its scope. */
  attachmentEnded(attachmentId: string): void {
    this.scopes.forget(attachmentId);
  }

  /** How many calls wait for the page. */
  get waiting(): number {
    return this.calls.size + this.asks.size;
  }

  /** Settles every pending call as unanswered; the link stays open (a page that attached again). */
  abandon(): void {
    for (const id of [...this.calls.keys()]) this.settle(id, this.unanswered());
    for (const id of [...this.asks.keys()]) this.answer(id, null);
  }

  /** Stops listening and settles every pending call as unanswered. */
  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.options.endpoint.onmessage = null;
    this.abandon();
    if (this.sweeper !== null) clearInterval(this.sweeper);
    this.sweeper = null;
  }

  private receive(data: unknown): void {
    const parsed = z.safeParse(this.inbound, data);
    if (!parsed.success || this.closed) return;
    const message = parsed.data;
    if (!isReply(message)) return this.options.onNotice(message as PageNotice | Other);
    switch (message.t) {
      case 'result':
        return this.settle(message.id, message.outcome);
      case 'progress':
        return this.calls.get(message.id)?.hooks.progress?.(message.progress, message.total);
      default:
        return this.answer(message.id, message);
    }
  }

  private ask(message: (id: string) => HostLinkCall): Promise<Answer | null> {
    if (this.closed) return Promise.resolve(null);
    const id = `x${++this.nextAsk}`;
    const expiresAt = this.options.timeouts ? this.now() + this.options.timeouts.askMs : Infinity;
    return new Promise((resolve) => {
      this.asks.set(id, { resolve, expiresAt });
      this.watch(expiresAt);
      if (!this.post(message(id))) this.answer(id, null);
    });
  }

  private answer(id: string, answer: Answer | null): void {
    const entry = this.asks.get(id);
    this.asks.delete(id);
    entry?.resolve(answer);
  }

  private settle(id: string, outcome: SessionOutcome): void {
    const entry = this.calls.get(id);
    if (!entry) return;
    this.calls.delete(id);
    if (entry.listening) entry.hooks.signal?.removeEventListener('abort', entry);
    entry.resolve(outcome);
  }

  /** One timer for the whole table, running only while an entry can expire. */
  private watch(expiresAt: number): void {
    if (expiresAt === Infinity || this.sweeper !== null) return;
    this.sweeper = setInterval(() => this.sweep(), SWEEP_MS);
  }

  private sweep(): void {
    const now = this.now();
    let left = false;
    for (const [id, entry] of this.calls) {
      if (entry.expiresAt <= now) this.settle(id, this.unanswered());
      else left ||= entry.expiresAt !== Infinity;
    }
    for (const [id, entry] of this.asks) {
      if (entry.expiresAt <= now) this.answer(id, null);
      else left ||= entry.expiresAt !== Infinity;
    }
    if (!left && this.sweeper !== null) {
      clearInterval(this.sweeper);
      this.sweeper = null;
    }
  }

  private post(message: HostLinkCall): boolean {
    if (this.closed) return false;
    try {
      this.options.endpoint.post(message);
      return true;
    } catch {
      // A message that cannot be sent: the channel is gone, or (a defect) a value that cannot be cloned.
      return false;
    }
  }

  private unanswered(): SessionOutcome {
    return { ok: false, error: this.options.unanswered };
  }
}
