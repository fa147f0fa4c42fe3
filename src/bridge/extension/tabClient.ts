/**
 * The service worker's end of one tab's extension link (SPEC §10): what the
 * bridge runtime asks of the page's host SDK (requests, bindings, captures),
 * as messages with ids, and the page's answers matched back to them. It is
 * the `HostCalls` of the host router and the `ObservePort` of the worker
 * observer, so the extension serves subscriptions and snapshots with the same
 * code as the page's worker. When the link goes, every pending call settles.
 */
import type { ExtensionMessage, LinkView, PageMessage } from '../../protocol/extensionLink.js';
import { makeError, type Target } from '../../protocol/index.js';
import type {
  BindingRequest,
  BindingStart,
  CaptureOptions,
  CaptureOutcome,
  SessionOutcome,
  SessionRequest,
} from '../../sdk/types.js';
import type { HostCalls } from '../hostRouter.js';
import type { ObservePort } from '../observeTypes.js';

/** Where the client's messages go (the tab's `chrome.runtime` Port). */
export type LinkSend = (message: ExtensionMessage) => void;

/** What the client needs around it. */
export interface TabClientDeps {
  send: LinkSend;
  /** Decodes a page capture's base64 PNG (createImageBitmap in the service worker). */
  decodePng(base64: string): Promise<ImageBitmap>;
  /** A running request's progress, reported by the page. */
  onProgress(requestId: string, progress: number, total?: number): void;
  /** Binding events and target notices, as the worker observer reads them. */
  onEvents(message: Extract<PageMessage, { t: 'events' | 'targetUnregistered' }>): void;
}

type Answer = Extract<PageMessage, { t: 'result' | 'bindingStarted' | 'captured' | 'located' }>;

interface Pending {
  settle(answer: Answer | null): void;
}

/** How long past its deadline a request waits for the page (the server has answered it by then). */
const DEADLINE_GRACE_MS = 5_000;
/** How long a binding start, capture or locate waits for the page. */
export const PAGE_ANSWER_TIMEOUT_MS = 35_000;

const GONE = 'The terminal tab went away before it answered; read tradescript://sessions again.';

/** The service worker's calls into one tab's page. */
export class TabClient implements HostCalls, ObservePort {
  private readonly pending = new Map<string, Pending>();
  private nextId = 0;
  private closed = false;

  constructor(private readonly deps: TabClientDeps) {}

  /** Applies one message from the page (already parsed). */
  receive(message: PageMessage): void {
    switch (message.t) {
      case 'progress':
        return this.deps.onProgress(message.id, message.progress, message.total);
      case 'events':
      case 'targetUnregistered':
        return this.deps.onEvents(message);
      case 'result':
      case 'bindingStarted':
      case 'captured':
      case 'located': {
        const key = `${message.t}:${message.id}`;
        const entry = this.pending.get(key);
        this.pending.delete(key);
        return entry?.settle(message);
      }
      default:
        return;
    }
  }

  /** The link is gone: every pending call settles as unanswered. */
  close(): void {
    this.closed = true;
    for (const entry of [...this.pending.values()]) entry.settle(null);
  }

  /** How many calls wait for the page. */
  get waiting(): number {
    return this.pending.size;
  }

  /** Sends the page a message that needs no answer (grant, status, stop). */
  tell(message: ExtensionMessage): void {
    if (!this.closed) this.deps.send(message);
  }

  async handle(request: SessionRequest): Promise<SessionOutcome> {
    // The relay id is unique on the socket; the page answers with it.
    const wait = request.deadlineMs + DEADLINE_GRACE_MS;
    const answer = await this.ask('result', request.id, () => this.deps.send({ t: 'request', request }), wait);
    if (answer?.t !== 'result') return { ok: false, error: makeError('transport_error', GONE) };
    return answer.outcome;
  }

  cancel(requestId: string): void {
    this.tell({ t: 'cancel', id: requestId });
  }

  async startBinding(request: BindingRequest, handle: number): Promise<BindingStart> {
    const id = this.id();
    const answer = await this.ask('bindingStarted', id, () =>
      this.deps.send({ t: 'startBinding', id, handle, request }),
    );
    if (answer?.t !== 'bindingStarted') return { ok: false, error: makeError('transport_error', GONE) };
    return answer.outcome;
  }

  stopBinding(subscriptionId: string, bindingId: string): void {
    this.tell({ t: 'stopBinding', subscriptionId, bindingId });
  }

  /** The SDK's capture on the page, decoded here. */
  async capture(target: Target, options: CaptureOptions): Promise<CaptureOutcome> {
    const id = this.id();
    const maxPixels = Math.max(1, Math.floor(options.maxPixels));
    const answer = await this.ask('captured', id, () => this.deps.send({ t: 'capture', id, target, maxPixels }));
    if (answer?.t !== 'captured') return { ok: false, error: makeError('transport_error', GONE) };
    const { outcome } = answer;
    if (!outcome.ok) return outcome;
    const bitmap = await this.deps.decodePng(outcome.png);
    return { ok: true, bitmap, width: outcome.width, height: outcome.height };
  }

  /** Where the page shows a target now, when it says. */
  async locate(target: Target): Promise<LinkView | null> {
    const id = this.id();
    const answer = await this.ask('located', id, () => this.deps.send({ t: 'locate', id, target }));
    return answer?.t === 'located' ? answer.view : null;
  }

  private id(): string {
    return `x${++this.nextId}`;
  }

  private ask(
    kind: Answer['t'],
    id: string,
    send: () => void,
    timeoutMs = PAGE_ANSWER_TIMEOUT_MS,
  ): Promise<Answer | null> {
    const key = `${kind}:${id}`;
    if (this.closed || this.pending.has(key)) return Promise.resolve(null);
    return new Promise((resolve) => {
      const timer = globalThis.setTimeout(() => this.pending.get(key)?.settle(null), timeoutMs);
      this.pending.set(key, {
        settle: (answer) => {
          globalThis.clearTimeout(timer);
          this.pending.delete(key);
          resolve(answer);
        },
      });
      try {
        send();
      } catch {
        this.pending.get(key)?.settle(null);
      }
    });
  }
}
