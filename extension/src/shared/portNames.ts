/** Names of the `chrome.runtime` Ports, which the service worker tells apart by name and sender. */

/** A granted tab's content script. */
export const TAB_PORT_NAME = 'tradescript.tab';
/** The popup. */
export const POPUP_PORT_NAME = 'tradescript.popup';
