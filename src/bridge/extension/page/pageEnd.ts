/**
 * The page's end of the extension link (SPEC §10): the host-call link's page
 * end (`pageHostLink.ts`) on the private MessagePort the content script
 * handed over, with the JSON codec (the content script forwards over
 * `chrome.runtime`, so a capture travels as a lossless PNG), plus what only
 * the extension says: the page's session (`attach`, `update`), its status and
 * grant, and `reset` when the service worker restarted.
 */
import {
  ExtensionMessageSchema,
  type ExtensionMessage,
  type LinkStatus,
  type PageMessage,
} from '../../../protocol/wire/extensionLink.js';
import type { LinkView } from '../../../protocol/wire/hostLink.js';
import type { Grant, SessionInfo, Target } from '../../../protocol/index.js';
import type { TerminalHost } from '../../../sdk/types.js';
import { PageCallLink } from '../../link/pageCallLink.js';
import { jsonCodec } from '../../link/linkCodecs.js';
import { portEndpoint, type PortLike } from '../../link/linkEndpoint.js';
import { bitmapToPngBase64, pngBase64ToBitmap } from '../pngEncode.js';

/** What the page end needs besides the host. */
export interface PageEndOptions {
  /** The session's info as the page tells it (title, url, environment). */
  info(): SessionInfo;
  /** The element showing a target, for the extension's visible-tab capture; null (or absent) means DOM capture. */
  locate?: (target: Target) => Element | null;
  onStatus?: (status: LinkStatus) => void;
  onGrant?: (grant: Grant) => void;
}

type Notice = Extract<ExtensionMessage, { t: 'status' | 'grant' | 'reset' }>;

/** The JSON codec's PNGs, made with the page's canvas (never decoded here). */
export const PAGE_PNG = { encode: bitmapToPngBase64, decode: pngBase64ToBitmap };

/** Where an element shows in the viewport now, for the visible-tab capture; null when it is not in the page. */
function viewOf(element: Element | null): LinkView | null {
  if (!element?.isConnected) return null;
  const { x, y, width, height } = element.getBoundingClientRect();
  return {
    rect: { x, y, width, height },
    viewport: { width: Math.max(1, window.innerWidth), height: Math.max(1, window.innerHeight) },
    devicePixelRatio: window.devicePixelRatio || 1,
    visible: document.visibilityState === 'visible',
  };
}

/** Serves one extension link for one host until the page closes it. */
export class ExtensionPageEnd {
  private readonly server: PageCallLink<Notice>;

  constructor(
    private readonly host: TerminalHost,
    port: PortLike,
    private readonly options: PageEndOptions,
  ) {
    this.server = new PageCallLink<Notice>(host, {
      endpoint: portEndpoint(port),
      codec: jsonCodec(PAGE_PNG),
      inbound: ExtensionMessageSchema,
      onNotice: (message) => this.notice(message),
      locate: (target) => viewOf(options.locate?.(target) ?? null),
    });
    this.attach();
  }

  /** Sends the session's info and catalog again (title, environment or controls changed). */
  update(): void {
    this.send({ t: 'update', info: this.options.info(), catalog: this.host.catalog() });
  }

  /** Stops every binding and request of this link and closes the port. */
  close(): void {
    this.server.close();
  }

  private attach(): void {
    this.send({ t: 'attach', info: this.options.info(), catalog: this.host.catalog() });
  }

  private send(message: PageMessage): void {
    this.server.post(message);
  }

  private notice(message: Notice): void {
    switch (message.t) {
      case 'status':
        return this.options.onStatus?.(message.status);
      case 'grant':
        this.host.grant = message.grant;
        return this.options.onGrant?.(message.grant);
      case 'reset':
        this.server.reset();
        return this.attach();
    }
  }
}
