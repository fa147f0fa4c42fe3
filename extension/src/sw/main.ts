/**
 * The extension's service worker (SPEC §9, §10). Listeners are added at the
 * top level, as Chrome requires for events to wake a stopped worker; they wait
 * for the runtime to boot. The relay's heartbeat (every 20 s) keeps the worker
 * alive while connected; when Chromium stops it anyway, the next event (the
 * alarm every 30 s, a tab's content script reconnecting, the popup opening)
 * starts it again, and it reconnects with the kept credential and session ids.
 */
import { POPUP_PORT_NAME, TAB_PORT_NAME } from '../shared/portNames.js';
import { ExtensionRuntime } from './extensionRuntime.js';
import { acceptPopupPort } from './popupPorts.js';
import { syncSiteScripts } from './siteScripts.js';
import { acceptTabPort } from './tabPorts.js';

const KEEP_ALIVE_ALARM = 'tradescript.keepAlive';
/** Chrome 120+ allows 30 s; older versions round it up to a minute. */
const KEEP_ALIVE_MINUTES = 0.5;

const booted: Promise<ExtensionRuntime> = ExtensionRuntime.boot();

function withRuntime(use: (runtime: ExtensionRuntime) => unknown): void {
  void booted.then(use).catch(() => undefined);
}

chrome.runtime.onConnect.addListener((port) => {
  if (port.name === TAB_PORT_NAME) return withRuntime((runtime) => acceptTabPort(runtime, port));
  if (port.name === POPUP_PORT_NAME) return withRuntime((runtime) => acceptPopupPort(runtime, port));
  port.disconnect();
});

chrome.tabs.onRemoved.addListener((tabId) => withRuntime((runtime) => runtime.tabRemoved(tabId)));

chrome.alarms.onAlarm.addListener(() => withRuntime(() => undefined));

async function ensureAlarm(): Promise<void> {
  if (!(await chrome.alarms.get(KEEP_ALIVE_ALARM)))
    await chrome.alarms.create(KEEP_ALIVE_ALARM, { periodInMinutes: KEEP_ALIVE_MINUTES });
}

withRuntime(async (runtime) => {
  await ensureAlarm();
  await syncSiteScripts(runtime.allSites().map((site) => site.origin));
});
