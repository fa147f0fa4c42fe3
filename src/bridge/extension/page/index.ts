/**
 * The page entry of the Chrome extension mode (SPEC §10): a terminal calls
 * {@link exposeToExtension} with its host SDK instead of `connectBridge`, and
 * the TradeScript extension, on a site the person allowed, links to it.
 * Any new export here becomes public API.
 */
export { exposeToExtension, WAITING_MESSAGE } from './exposeToExtension.js';
export type { ExposeOptions, ExtensionLink, ExtensionLinkStatus } from './exposeToExtension.js';
