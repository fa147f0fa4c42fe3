/**
 * How a terminal page offers its host SDK to the TradeScript Chrome extension
 * (SPEC §10). The page says hello on its own `window`; the extension's content
 * script, which runs only on sites the person allowed, answers with a private
 * MessagePort, handed over once. The page accepts exactly one port, and only
 * from a message its own window posted with its own origin in the expected
 * shape: an iframe or another origin cannot offer one. The page never sees the
 * relay's address or credential; it only hears its session's status.
 */
import {
  EXTENSION_LINK_TAG,
  EXTENSION_LINK_VERSION,
  HandshakeMessageSchema,
  type LinkStatus,
} from '../../../protocol/wire/extensionLink.js';
import type { Grant, SessionInfo, Target } from '../../../protocol/index.js';
import type { TerminalHost } from '../../../sdk/types.js';
import { ExtensionPageEnd } from './pageEnd.js';

/** What the page shows about the extension link. */
export interface ExtensionLinkStatus extends LinkStatus {
  /** True once the extension's content script handed over the link. */
  linked: boolean;
}

/** Options of {@link exposeToExtension}. */
export interface ExposeOptions {
  /** The tab's title as MCP clients see it (up to 200 characters). */
  title: string;
  /**
   * The element showing a chart or widget target, so the extension can crop
   * its capture of the visible tab (SPEC §8); return null for a target that
   * is not on screen, or whose surface policy denies capture. Without it,
   * every snapshot uses the SDK's own capture.
   */
  locate?: (target: Target) => Element | null;
  /** Every status change of the link and its session. */
  onStatus?: (status: ExtensionLinkStatus) => void;
  /** The person changed this site's grant in the extension (the host's grant is already set). */
  onGrant?: (grant: Grant) => void;
}

/** The page's handle on the link. */
export interface ExtensionLink {
  /** The latest status. */
  status(): ExtensionLinkStatus;
  /** Re-sends the session's title (the new one, if given), environment and catalog. */
  updateInfo(title?: string): void;
  /** Stops listening, stops every binding and closes the link; the tab needs a reload to link again. */
  close(): void;
}

const MAX_TITLE = 200;
const MAX_URL = 2048;

/** Shown until the content script answers. */
export const WAITING_MESSAGE =
  'Waiting for the TradeScript extension: allow this site in its popup, then reload the tab.';

function sessionInfo(host: TerminalHost, title: string): SessionInfo {
  // Never the query or fragment: a `#pair=` code must not travel.
  const url = `${location.origin}${location.pathname}`;
  return {
    title: title.slice(0, MAX_TITLE),
    ...(url.length <= MAX_URL ? { url } : {}),
    environment: host.environment,
    grant: host.grant,
  };
}

function postHello(): void {
  window.postMessage({ tag: EXTENSION_LINK_TAG, v: EXTENSION_LINK_VERSION, t: 'hello' }, location.origin);
}

/**
 * Offers `host` to the TradeScript extension and returns the link's handle.
 * Safe to call when the extension is absent: the link then stays waiting.
 */
export function exposeToExtension(host: TerminalHost, options: ExposeOptions): ExtensionLink {
  let title = options.title;
  let server: ExtensionPageEnd | null = null;
  let closed = false;
  let current: ExtensionLinkStatus = {
    state: 'disconnected',
    sessionId: null,
    attachments: [],
    message: WAITING_MESSAGE,
    linked: false,
  };
  const report = (status: ExtensionLinkStatus): void => {
    current = status;
    options.onStatus?.(status);
  };
  const onMessage = (event: MessageEvent): void => {
    if (server || closed || event.source !== window || event.origin !== location.origin) return;
    const parsed = HandshakeMessageSchema.safeParse(event.data);
    if (!parsed.success) return;
    if (parsed.data.t === 'ready') return postHello();
    const [port, ...extra] = event.ports;
    if (parsed.data.t !== 'offer' || !port || extra.length > 0) return;
    window.removeEventListener('message', onMessage);
    server = new ExtensionPageEnd(host, port, {
      info: () => sessionInfo(host, title),
      locate: options.locate,
      onStatus: (status) => report({ ...status, linked: true }),
      onGrant: options.onGrant,
    });
    report({ ...current, state: 'connecting', message: null, linked: true });
  };
  window.addEventListener('message', onMessage);
  postHello();
  return {
    status: () => current,
    updateInfo(newTitle) {
      title = newTitle ?? title;
      server?.update();
    },
    close() {
      closed = true;
      window.removeEventListener('message', onMessage);
      server?.close();
      server = null;
      report({ state: 'disconnected', sessionId: null, attachments: [], message: null, linked: false });
    },
  };
}
