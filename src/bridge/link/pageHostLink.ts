/**
 * The page's end of the host-call link (`hostLink.ts` in src/protocol): serves
 * what the bridge asks (bindings, captures, locations) against the terminal's
 * host SDK on the main thread, for the page's worker and for the extension
 * alike; binding sources post their events in batches on the same link
 * (`eventBatch.ts`), and a target's unregistration after them. Requests are
 * `PageCallLink`'s (`pageCallLink.ts`), the extension's page end: a page's own
 * requests reach its SDK straight from its socket (issue 15 item 1), so its
 * bundle leaves them out. Everything that arrives is parsed first.
 */
import * as z from 'zod/mini';
import { HostLinkCallSchema, type HostLinkCall, type LinkView } from '../../protocol/wire/hostLink.js';
import type { Target } from '../../protocol/index.js';
import type { BindingRequest, TerminalHost } from '../../sdk/types.js';
import { EventBatcher, type EventPortMessage } from './eventBatch.js';
import type { LinkCodec } from './linkCodecs.js';
import type { LinkEndpoint } from './linkEndpoint.js';

/** The host calls the link serves. */
export type LinkHost = Pick<
  TerminalHost,
  'handle' | 'startBinding' | 'stopBinding' | 'capture' | 'onTargetUnregistered'
>;

/** What one page end is built from. */
export interface PageHostLinkOptions<Other extends { t: string }> {
  endpoint: LinkEndpoint;
  codec: LinkCodec;
  /** What arrives is parsed against this: the link's calls, or those and a deployment's own messages. */
  inbound?: z.ZodMiniType<HostLinkCall | Other>;
  /** Messages that are not host calls (the extension's grant, status and reset). */
  onNotice?(message: Other): void;
  /** Where the page shows a target (the extension's visible-tab capture); null (or absent) means nowhere. */
  locate?(target: Target): LinkView | null;
}

/** A request's part of the link: what `PageCallLink` serves. */
export type LinkCallMessage = Extract<HostLinkCall, { t: 'scope' | 'drop' | 'call' | 'cancel' }>;

/** Serves one link for one host until it is closed. */
export class PageHostLink<Other extends { t: string } = never> {
  private readonly bindings = new Map<string, BindingRequest>();
  private readonly inbound: z.ZodMiniType<HostLinkCall | Other>;
  private readonly batcher: EventBatcher;
  private readonly stopListening: () => void;
  private closed = false;

  constructor(
    protected readonly host: LinkHost,
    private readonly options: PageHostLinkOptions<Other>,
  ) {
    this.inbound = options.inbound ?? HostLinkCallSchema;
    this.batcher = new EventBatcher({ postMessage: (message: EventPortMessage) => options.endpoint.post(message) });
    this.stopListening = host.onTargetUnregistered((target) =>
      this.batcher.control({ t: 'targetUnregistered', target }),
    );
    options.endpoint.onmessage = (data) => this.receive(data);
    options.endpoint.onunsent = (message) => this.unsent(message);
  }

  /** Sends the bridge one message; a value that cannot be sent is a host defect, and the request times out. */
  post(message: unknown, transfer?: Transferable[]): boolean {
    if (this.closed) return false;
    try {
      this.options.endpoint.post(message, transfer);
      return true;
    } catch {
      return false;
    }
  }

  /** Posts the binding events queued so far (they go on their own within 4 ms anyway). */
  flushEvents(): void {
    this.batcher.flush();
  }

  /** Aborts every running call, stops every binding and flushes the events queued so far. */
  reset(): void {
    for (const { subscriptionId, bindingId } of this.bindings.values())
      this.host.stopBinding(subscriptionId, bindingId);
    this.bindings.clear();
    this.batcher.flush();
  }

  /** Stops serving: every call and binding of this link ends, and the endpoint closes. */
  close(): void {
    if (this.closed) return;
    this.reset();
    this.closed = true;
    this.stopListening();
    this.options.endpoint.onmessage = null;
    this.options.endpoint.close();
  }

  private receive(data: unknown): void {
    const parsed = z.safeParse(this.inbound, data);
    if (!parsed.success || this.closed) return;
    const message = parsed.data;
    switch (message.t) {
      case 'scope':
      case 'drop':
      case 'call':
      case 'cancel':
      case 'startBinding':
      case 'stopBinding':
      case 'capture':
      case 'locate':
        return this.serve(message as HostLinkCall);
      default:
        return this.options.onNotice?.(message as Other);
    }
  }

  private serve(message: HostLinkCall): void {
    switch (message.t) {
      case 'scope':
      case 'drop':
      case 'call':
      case 'cancel':
        return this.serveCall(message);
      case 'startBinding':
        return void this.startBinding(message);
      case 'stopBinding':
        this.bindings.delete(`${message.subscriptionId}\u0000${message.bindingId}`);
        return this.host.stopBinding(message.subscriptionId, message.bindingId);
      case 'capture':
        return void this.capture(message.id, message.target, message.maxPixels);
      case 'locate':
        return void this.post({ t: 'located', id: message.id, view: this.locate(message.target) });
    }
  }

  /** A request's message: this end serves none (its bridge sends none), so nothing happens. */
  protected serveCall(_message: LinkCallMessage): void {}

  /** A batched message that could not be sent: this end sends no answers of its own that need one. */
  protected unsent(_message: unknown): void {}

  private async startBinding({ id, handle, request }: Extract<HostLinkCall, { t: 'startBinding' }>): Promise<void> {
    const outcome = await this.host.startBinding(request, this.batcher.sink(handle));
    if (outcome.ok) this.bindings.set(`${request.subscriptionId}\u0000${request.bindingId}`, request);
    this.post({ t: 'bindingStarted', id, outcome });
  }

  private async capture(id: string, target: Target, maxPixels: number): Promise<void> {
    const encoded = await this.options.codec.encodeCapture(await this.host.capture(target, { maxPixels }));
    this.post({ t: 'captured', id, outcome: encoded.outcome }, encoded.transfer);
  }

  private locate(target: Target): LinkView | null {
    try {
      return this.options.locate?.(target) ?? null;
    } catch {
      return null;
    }
  }
}
