/**
 * The popup's Port (SPEC §10): only an extension page of ours may open it.
 * It hears the whole state on connect and after every change, and sends
 * commands, each parsed before it runs.
 */
import { PopupCommandSchema, type PopupCommand } from '../../../src/protocol/wire/extensionLink.js';
import type { ExtensionRuntime } from './extensionRuntime.js';

const OWN_PAGES = `chrome-extension://${chrome.runtime.id}/`;

async function run(runtime: ExtensionRuntime, command: PopupCommand): Promise<void> {
  switch (command.t) {
    case 'pair':
      return runtime.pair(command.code);
    case 'setRelayUrl':
      return runtime.setRelayUrl(command.url, command.token);
    case 'allowSite':
    case 'setGrant':
      return runtime.allowSite(command.origin, command.grant);
    case 'revokeSite':
      return runtime.revokeSite(command.origin);
    case 'detach':
      return runtime.detach(command.sessionId);
  }
}

/** Serves one popup Port. */
export function acceptPopupPort(runtime: ExtensionRuntime, port: chrome.runtime.Port): void {
  const sender = port.sender;
  if (
    sender?.id !== chrome.runtime.id ||
    !sender.url?.startsWith(OWN_PAGES) ||
    (sender.tab?.id !== undefined && sender.frameId !== 0)
  ) {
    return port.disconnect();
  }
  const stop = runtime.onState((state) => port.postMessage({ t: 'state', state }));
  port.onDisconnect.addListener(stop);
  port.onMessage.addListener((data) => {
    const parsed = PopupCommandSchema.safeParse(data);
    if (!parsed.success) return runtime.tell('The popup sent a command this version does not know; reopen the popup.');
    void run(runtime, parsed.data).catch(() => runtime.tell('That did not work; reopen the popup and try again.'));
  });
}
