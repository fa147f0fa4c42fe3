/**
 * The page's end of the extension link (SPEC §10): serves what the service
 * worker asks over the private MessagePort the content script handed over,
 * against the terminal's host SDK. Like the worker's page port, it keeps one
 * AbortController per request, starts and stops binding sources whose events
 * travel in batches, and rasterizes captures; unlike it, everything crosses
 * as JSON (the content script forwards over `chrome.runtime`), so a capture
 * travels as a lossless PNG. Every message that arrives is parsed first.
 */
import {
  ExtensionMessageSchema,
  type ExtensionMessage,
  type LinkStatus,
  type LinkView,
  type PageMessage,
} from '../../protocol/extensionLink.js';
import { makeError, type CatalogDocument, type Grant, type SessionInfo, type Target } from '../../protocol/index.js';
import type { SessionRequest, TerminalHost } from '../../sdk/types.js';
import { EventBatcher, type EventPortMessage } from '../eventBatch.js';
import { bitmapToPngBase64 } from './pngEncode.js';

/** The port the content script transferred (a MessagePort in the page). */
export interface LinkPort {
  postMessage(message: PageMessage): void;
  addEventListener(type: 'message', listener: (event: { data: unknown }) => void): void;
  start?(): void;
  close?(): void;
}

/** What the link server needs besides the host. */
export interface LinkServerOptions {
  /** The session's info as the page tells it (title, url, environment). */
  info(): SessionInfo;
  /** The element showing a target, for the extension's visible-tab capture; null (or absent) means DOM capture. */
  locate?: (target: Target) => Element | null;
  onStatus?: (status: LinkStatus) => void;
  onGrant?: (grant: Grant) => void;
}

type Served = Exclude<ExtensionMessage['t'], 'status' | 'grant' | 'reset'>;
type RequestOp = SessionRequest['op'];

function isHostOp(op: { kind: string }): op is RequestOp {
  return op.kind === 'context' || op.kind === 'listControls' || op.kind === 'call' || op.kind === 'batch';
}

/** Serves one link for one host until the page closes it. */
export class LinkServer {
  private readonly controllers = new Map<string, AbortController>();
  private readonly bindings = new Map<string, { subscriptionId: string; bindingId: string }>();
  private readonly batcher: EventBatcher;
  private readonly stopListening: () => void;
  private closed = false;

  constructor(
    private readonly host: TerminalHost,
    private readonly port: LinkPort,
    private readonly options: LinkServerOptions,
  ) {
    this.batcher = new EventBatcher({ postMessage: (message: EventPortMessage) => this.post(message) });
    this.stopListening = host.onTargetUnregistered((target) =>
      this.batcher.control({ t: 'targetUnregistered', target }),
    );
    port.addEventListener('message', (event) => this.receive(event.data));
    port.start?.();
    this.attach();
  }

  /** Sends the session's info and catalog again (title, environment or controls changed). */
  update(): void {
    this.post({ t: 'update', info: this.options.info(), catalog: this.catalog() });
  }

  /** Stops every binding and request of this link and closes the port. */
  close(): void {
    if (this.closed) return;
    this.reset();
    this.closed = true;
    this.stopListening();
    this.port.close?.();
  }

  private attach(): void {
    this.post({ t: 'attach', info: this.options.info(), catalog: this.catalog() });
  }

  private catalog(): CatalogDocument {
    return this.host.catalog();
  }

  private post(message: PageMessage): void {
    if (this.closed) return;
    try {
      this.port.postMessage(message);
    } catch {
      // A value that cannot be cloned is a host defect; the request times out on the server.
    }
  }

  private receive(data: unknown): void {
    const parsed = ExtensionMessageSchema.safeParse(data);
    if (!parsed.success || this.closed) return;
    const message = parsed.data;
    switch (message.t) {
      case 'status':
        return this.options.onStatus?.(message.status);
      case 'grant':
        this.host.grant = message.grant;
        return this.options.onGrant?.(message.grant);
      case 'reset':
        this.reset();
        return this.attach();
      default:
        return void this.serve(message).catch(() => undefined);
    }
  }

  private async serve(message: Extract<ExtensionMessage, { t: Served }>): Promise<void> {
    switch (message.t) {
      case 'request':
        return this.request(message.request);
      case 'cancel':
        return this.controllers.get(message.id)?.abort(new Error('The MCP client cancelled this request.'));
      case 'startBinding':
        return this.startBinding(message);
      case 'stopBinding':
        this.bindings.delete(`${message.subscriptionId}\u0000${message.bindingId}`);
        return this.host.stopBinding(message.subscriptionId, message.bindingId);
      case 'capture':
        return this.capture(message.id, message.target, message.maxPixels);
      case 'locate':
        return this.post({ t: 'located', id: message.id, view: this.locate(message.target) });
    }
  }

  private async request(request: Extract<ExtensionMessage, { t: 'request' }>['request']): Promise<void> {
    const { op } = request;
    if (!isHostOp(op)) return;
    const controller = new AbortController();
    this.controllers.set(request.id, controller);
    try {
      const outcome = await this.host.handle(
        { ...request, op },
        {
          signal: controller.signal,
          progress: (progress, total) => this.post({ t: 'progress', id: request.id, progress, total }),
        },
      );
      if (this.controllers.get(request.id) === controller) this.post({ t: 'result', id: request.id, outcome });
    } finally {
      if (this.controllers.get(request.id) === controller) this.controllers.delete(request.id);
    }
  }

  private async startBinding(message: Extract<ExtensionMessage, { t: 'startBinding' }>): Promise<void> {
    const { request, handle, id } = message;
    const outcome = await this.host.startBinding(request, this.batcher.sink(handle));
    if (outcome.ok) this.bindings.set(`${request.subscriptionId}\u0000${request.bindingId}`, request);
    this.post({ t: 'bindingStarted', id, outcome });
  }

  private async capture(id: string, target: Target, maxPixels: number): Promise<void> {
    const captured = await this.host.capture(target, { maxPixels });
    if (!captured.ok) return this.post({ t: 'captured', id, outcome: captured });
    const { bitmap, width, height } = captured;
    try {
      const png = await bitmapToPngBase64(bitmap);
      this.post({ t: 'captured', id, outcome: { ok: true, png, width, height } });
    } catch {
      const error = makeError(
        'control_failed',
        'The terminal could not encode this capture; re-read context and try again.',
      );
      this.post({ t: 'captured', id, outcome: { ok: false, error } });
    } finally {
      bitmap.close();
    }
  }

  private locate(target: Target): LinkView | null {
    let element: Element | null = null;
    try {
      element = this.options.locate?.(target) ?? null;
    } catch {
      return null;
    }
    if (!element?.isConnected) return null;
    const { x, y, width, height } = element.getBoundingClientRect();
    return {
      rect: { x, y, width, height },
      viewport: { width: Math.max(1, window.innerWidth), height: Math.max(1, window.innerHeight) },
      devicePixelRatio: window.devicePixelRatio || 1,
      visible: document.visibilityState === 'visible',
    };
  }

  /** The service worker restarted (or the link is closing): nothing of the old one runs on. */
  private reset(): void {
    for (const controller of this.controllers.values()) controller.abort(new Error('The extension link restarted.'));
    this.controllers.clear();
    for (const { subscriptionId, bindingId } of this.bindings.values())
      this.host.stopBinding(subscriptionId, bindingId);
    this.bindings.clear();
    this.batcher.flush();
  }
}
