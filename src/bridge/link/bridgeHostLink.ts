/**
 * The bridge's end of the host-call link (`hostLink.ts` in src/protocol): in
 * the page's worker and in the extension's service worker alike, what the
 * bridge asks of the page's host SDK — binding starts and stops, captures,
 * locations — as messages with ids, and the page's answers matched back to
 * them: the `ObservePort` of the worker observer. Requests with their
 * cancellation and progress are `BridgeCallLink`'s (`bridgeCallLink.ts`),
 * which only the extension's service worker needs: a page's requests run on
 * its main thread (issue 15 item 1), so its worker's bundle leaves them out.
 * When the link closes every pending ask settles.
 */
import * as z from 'zod/mini';
import {
  HostLinkAnswerSchema,
  type HostLinkAnswer,
  type HostLinkCall,
  type LinkView,
} from '../../protocol/wire/hostLink.js';
import type { ErrorObject, Target } from '../../protocol/index.js';
import type { BindingRequest, BindingStart, CaptureOptions, CaptureOutcome } from '../../sdk/types.js';
import type { LinkCodec } from './linkCodecs.js';
import type { LinkEndpoint } from './linkEndpoint.js';
import type { ObservePort } from '../observe/observeTypes.js';

type Answer = Extract<HostLinkAnswer, { t: 'bindingStarted' | 'captured' | 'located' }>;
/** A call's answer or progress (`BridgeCallLink`). */
export type CallReply = Extract<HostLinkAnswer, { t: 'result' | 'progress' }>;
type Reply = CallReply | Answer;
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

interface PendingAsk {
  resolve(answer: Answer | null): void;
  expiresAt: number;
}

/** The bridge's asks of one page (bindings, captures, locations). */
export class BridgeHostLink<Other extends { t: string } = never> implements ObservePort {
  private readonly asks = new Map<string, PendingAsk>();
  private readonly inbound: z.ZodMiniType<HostLinkAnswer | Other>;
  protected readonly now: () => number;
  private sweeper: ReturnType<typeof setInterval> | null = null;
  private nextAsk = 0;
  protected closed = false;

  constructor(protected readonly options: BridgeHostLinkOptions<Other>) {
    this.inbound = options.inbound ?? HostLinkAnswerSchema;
    this.now = options.now ?? Date.now;
    options.endpoint.onmessage = (data) => this.receive(data);
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

  /** How many calls and asks wait for the page. */
  get waiting(): number {
    return this.asks.size;
  }

  /** Settles every pending ask (and call) as unanswered; the link stays open (a page that attached again). */
  abandon(): void {
    for (const id of [...this.asks.keys()]) this.answer(id, null);
  }

  /** A call's answer or progress: this end makes no calls, so there is none to match. */
  protected reply(_message: CallReply): void {}

  /** Settles what expired by `now`; true when something left can still expire. */
  protected expire(now: number): boolean {
    let left = false;
    for (const [id, entry] of this.asks) {
      if (entry.expiresAt <= now) this.answer(id, null);
      else left ||= entry.expiresAt !== Infinity;
    }
    return left;
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
      case 'progress':
        return this.reply(message);
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

  /** One timer for the whole table, running only while an entry can expire. */
  protected watch(expiresAt: number): void {
    if (expiresAt === Infinity || this.sweeper !== null) return;
    this.sweeper = setInterval(() => this.sweep(), SWEEP_MS);
  }

  private sweep(): void {
    const left = this.expire(this.now());
    if (!left && this.sweeper !== null) {
      clearInterval(this.sweeper);
      this.sweeper = null;
    }
  }

  protected post(message: HostLinkCall): boolean {
    if (this.closed) return false;
    try {
      this.options.endpoint.post(message);
      return true;
    } catch {
      // A message that cannot be sent: the channel is gone, or (a defect) a value that cannot be cloned.
      return false;
    }
  }

  protected unanswered(): { ok: false; error: ErrorObject } {
    return { ok: false, error: this.options.unanswered };
  }
}
