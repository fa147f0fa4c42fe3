/**
 * Accepting a content script's Port (SPEC §10). The browser, not the page,
 * says which tab, frame and origin opened it: only our own content script in
 * a top-level frame of an allowed site is accepted; anything else is
 * disconnected without a word. Messages are parsed and handled in order.
 */
import type { TabSession } from '../../../src/bridge/extension/tabSession.js';
import {
  PageMessageSchema,
  isSiteOrigin,
  type ExtensionMessage,
  type PageMessage,
} from '../../../src/protocol/extensionLink.js';
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

function linkOf(port: chrome.runtime.Port): TabLink | null {
  const sender = port.sender;
  const tabId = sender?.tab?.id;
  const site = senderSite(sender);
  if (sender?.id !== chrome.runtime.id || sender.frameId !== 0 || tabId === undefined || !site) return null;
  return {
    tabId,
    ...site,
    send: (message: ExtensionMessage) => {
      try {
        port.postMessage(message);
      } catch {
        // The Port closed; its disconnect handler closes the session.
      }
    },
    disconnect: () => port.disconnect(),
  };
}

/** Accepts a content script's Port for an allowed site, or disconnects it. */
export function acceptTabPort(runtime: ExtensionRuntime, port: chrome.runtime.Port): void {
  const link = linkOf(port);
  if (!link || !runtime.site(link.origin)) return port.disconnect();
  port.postMessage({ t: 'accepted' });
  let session: TabSession | null = null;
  let queue: Promise<void> = Promise.resolve();
  const handle = async (message: PageMessage): Promise<void> => {
    if (message.t === 'attach') session = await runtime.attachTab(link, message);
    else session?.receive(message);
  };
  port.onMessage.addListener((data) => {
    const parsed = PageMessageSchema.safeParse(data);
    if (!parsed.success) return;
    queue = queue.then(() => handle(parsed.data)).catch(() => undefined);
  });
  port.onDisconnect.addListener(() => {
    queue = queue.then(() => runtime.linkClosed(link.tabId, session));
  });
}
