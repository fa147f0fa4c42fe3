/**
 * The popup's Port to the service worker: the state it pushes, parsed, and the
 * commands the popup sends. Opening the Port wakes a stopped service worker;
 * when it stops while the popup is open, the popup connects again.
 */
import { PopupUpdateSchema, type PopupCommand, type PopupState } from '../../../src/protocol/wire/extensionLink.js';
import { POPUP_PORT_NAME } from '../shared/portNames.js';

const RECONNECT_DELAY_MS = 200;

/** The popup's connection. */
export class PopupClient {
  private port: chrome.runtime.Port | null = null;
  private closed = false;

  constructor(private readonly onState: (state: PopupState) => void) {}

  /** Connects (again after every disconnect, until closed). */
  open(): void {
    if (this.closed) return;
    const port = chrome.runtime.connect({ name: POPUP_PORT_NAME });
    this.port = port;
    port.onMessage.addListener((data) => {
      const parsed = PopupUpdateSchema.safeParse(data);
      if (parsed.success) this.onState(parsed.data.state);
    });
    port.onDisconnect.addListener(() => {
      if (this.port === port) this.port = null;
      setTimeout(() => this.open(), RECONNECT_DELAY_MS);
    });
  }

  /** Sends one command; false when the service worker is not connected right now. */
  send(command: PopupCommand): boolean {
    if (!this.port) return false;
    this.port.postMessage(command);
    return true;
  }

  /** Stops reconnecting. */
  close(): void {
    this.closed = true;
    this.port?.disconnect();
  }
}

/** The active tab's site, when it is a web page (the popup opened over it). */
export async function activeTabOrigin(): Promise<string | null> {
  const [tab] = await chrome.tabs.query({ active: true, currentWindow: true }).catch(() => []);
  if (!tab?.url) return null;
  try {
    const url = new URL(tab.url);
    return url.protocol === 'http:' || url.protocol === 'https:' ? url.origin : null;
  } catch {
    return null;
  }
}
