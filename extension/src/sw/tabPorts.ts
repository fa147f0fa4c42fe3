/**
 * Accepting a content script's Port (SPEC §10). The browser, not the page,
 * says which tab, frame and origin opened it: only our own content script in
 * a top-level frame of an allowed site is accepted; anything else is
 * disconnected without a word. The Port is the endpoint of the tab's
 * host-call link, which parses every message; the page's own messages are
 * handled in order.
 */
import {
  pngBase64ToBitmap,
  tabLinkClient,
  type LinkEndpoint,
  type TabNotice,
  type TabSession,
} from '../../../src/bridge/extension/sw/index.js';
import { isSiteOrigin, type ExtensionMessage } from '../../../src/protocol/wire/extensionLink.js';
import type { ExtensionRuntime, TabLink } from './extensionRuntime.js';

/** The sender's origin and its URL without query or fragment, or null when it is not a page of a site. */
function senderSite(sender: chrome.runtime.MessageSender | undefined): { origin: string; url: string } | null {
  if (!sender?.url) return null;
  try {
    const url = new URL(sender.url);
    const origin = sender.origin ?? url.origin;
    if (origin !== url.origin || !isSiteOrigin(origin)) return null;
    return { origin, url: `${url.origin}${url.pathname}` };
  } catch {
    return null;
  }
}

/** A `chrome.runtime` Port as the link's endpoint. */
function portEndpoint(port: chrome.runtime.Port): LinkEndpoint {
  const endpoint: LinkEndpoint = {
    post: (message) => {
      try {
        port.postMessage(message);
      } catch {
        // The Port closed; its disconnect handler closes the session.
      }
    },
    onmessage: null,
    close: () => port.disconnect(),
  };
  port.onMessage.addListener((data) => endpoint.onmessage?.(data));
  return endpoint;
}

function siteOf(port: chrome.runtime.Port): Omit<TabLink, 'client' | 'send' | 'disconnect'> | null {
  const sender = port.sender;
  const tabId = sender?.tab?.id;
  const site = senderSite(sender);
  if (sender?.id !== chrome.runtime.id || sender.frameId !== 0 || tabId === undefined || !site) return null;
  return { tabId, ...site };
}

/** Accepts a content script's Port for an allowed site, or disconnects it. */
export function acceptTabPort(runtime: ExtensionRuntime, port: chrome.runtime.Port): void {
  const site = siteOf(port);
  if (!site || !runtime.site(site.origin)) return port.disconnect();
  port.postMessage({ t: 'accepted' });
  let session: TabSession | null = null;
  let queue: Promise<void> = Promise.resolve();
  const endpoint = portEndpoint(port);
  const handle = async (message: TabNotice): Promise<void> => {
    if (message.t === 'attach') session = await runtime.attachTab(link, message);
    else session?.receive(message);
  };
  const client = tabLinkClient(endpoint, { decode: pngBase64ToBitmap }, (message) => {
    queue = queue.then(() => handle(message)).catch(() => undefined);
  });
  const link: TabLink = {
    ...site,
    client,
    send: (message: ExtensionMessage) => endpoint.post(message),
    disconnect: () => port.disconnect(),
  };
  port.onDisconnect.addListener(() => {
    client.close();
    queue = queue.then(() => runtime.linkClosed(link.tabId, session));
  });
}
