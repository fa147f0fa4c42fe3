/**
 * The content script (SPEC §10): registered only for sites the person
 * allowed, top-level frames only. It opens a Port to the service worker,
 * which checks the tab's origin against the site grants and answers
 * `accepted` or disconnects; until accepted it says nothing to the page.
 * Once accepted it answers the page's hello (its own window, its own origin,
 * the expected shape) with one private MessagePort and from then on forwards
 * parsed messages both ways. It never reads extension storage: the credential
 * and the relay address stay in the service worker. When the service worker
 * restarts, the Port drops: the page hears `reset` and the script reconnects.
 */
import {
  EXTENSION_LINK_TAG,
  EXTENSION_LINK_VERSION,
  ExtensionMessageSchema,
  HandshakeMessageSchema,
  PageMessageSchema,
  TabAcceptedSchema,
  type ExtensionMessage,
  type PageMessage,
} from '../../../src/protocol/wire/extensionLink.js';
import { TAB_PORT_NAME } from '../shared/portNames.js';

/** Wait before reconnecting to a service worker that stopped. */
const RECONNECT_DELAY_MS = 100;
/** Messages from the page kept while the service worker restarts: only its session's latest info matters. */
const KEPT_WHILE_AWAY: ReadonlySet<PageMessage['t']> = new Set(['attach', 'update']);

const REVOKED: ExtensionMessage = {
  t: 'status',
  status: {
    state: 'disconnected',
    sessionId: null,
    attachments: [],
    message:
      'The TradeScript extension no longer allows this site: allow it again in the extension popup, then reload.',
  },
};

class ContentLink {
  private runtime: chrome.runtime.Port | null = null;
  private accepted = false;
  private everAccepted = false;
  private page: MessagePort | null = null;
  private queued: PageMessage | null = null;

  start(): void {
    this.connect();
    window.addEventListener('pageshow', (event) => {
      if (event.persisted && this.runtime === null && this.everAccepted) this.connect();
    });
  }

  private connect(): void {
    const port = chrome.runtime.connect({ name: TAB_PORT_NAME });
    this.runtime = port;
    this.accepted = false;
    port.onMessage.addListener((data) => this.fromWorker(port, data));
    port.onDisconnect.addListener(() => this.disconnected(port));
  }

  private fromWorker(port: chrome.runtime.Port, data: unknown): void {
    if (port !== this.runtime) return;
    if (!this.accepted) {
      if (TabAcceptedSchema.safeParse(data).success) this.acceptedNow(port);
      return;
    }
    const parsed = ExtensionMessageSchema.safeParse(data);
    if (parsed.success) this.page?.postMessage(parsed.data);
  }

  private acceptedNow(port: chrome.runtime.Port): void {
    this.accepted = true;
    if (!this.everAccepted) {
      this.everAccepted = true;
      window.addEventListener('message', this.onWindowMessage);
      window.postMessage({ tag: EXTENSION_LINK_TAG, v: EXTENSION_LINK_VERSION, t: 'ready' }, location.origin);
    }
    if (this.queued) this.send(port, this.queued);
    this.queued = null;
  }

  private disconnected(port: chrome.runtime.Port): void {
    if (port !== this.runtime) return;
    this.runtime = null;
    // Never accepted: this site is not allowed. Stay silent.
    if (!this.everAccepted) return window.removeEventListener('message', this.onWindowMessage);
    if (!this.accepted) return this.page?.postMessage(REVOKED);
    this.accepted = false;
    this.page?.postMessage({ t: 'reset' } satisfies ExtensionMessage);
    setTimeout(() => this.connect(), RECONNECT_DELAY_MS);
  }

  private readonly onWindowMessage = (event: MessageEvent): void => {
    if (this.page || event.source !== window || event.origin !== location.origin) return;
    const parsed = HandshakeMessageSchema.safeParse(event.data);
    if (!parsed.success || parsed.data.t !== 'hello') return;
    window.removeEventListener('message', this.onWindowMessage);
    const channel = new MessageChannel();
    this.page = channel.port1;
    this.page.onmessage = (message) => this.fromPage(message.data);
    window.postMessage({ tag: EXTENSION_LINK_TAG, v: EXTENSION_LINK_VERSION, t: 'offer' }, location.origin, [
      channel.port2,
    ]);
  };

  private fromPage(data: unknown): void {
    const parsed = PageMessageSchema.safeParse(data);
    if (!parsed.success) return;
    const message = parsed.data;
    if (this.runtime && this.accepted) return this.send(this.runtime, message);
    if (!KEPT_WHILE_AWAY.has(message.t)) return;
    // An update of a session not attached yet is its attach.
    this.queued = message.t === 'update' && this.queued?.t === 'attach' ? { ...message, t: 'attach' } : message;
  }

  private send(port: chrome.runtime.Port, message: PageMessage): void {
    try {
      port.postMessage(message);
    } catch {
      // The Port just closed; its disconnect handler resets the page.
    }
  }
}

// The script may be injected into a tab that already runs it (allowed while open, then reloaded by the registration).
const marker = globalThis as { __tradescriptContentLink?: ContentLink };
if (!marker.__tradescriptContentLink) {
  marker.__tradescriptContentLink = new ContentLink();
  marker.__tradescriptContentLink.start();
}
