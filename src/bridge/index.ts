/**
 * `tradescript-mcp/bridge`, the bridge's page entry (SPEC §1, §2):
 * {@link connectBridge} starts the bridge worker and connects a terminal's host
 * SDK to the relay, for a terminal that shows pairing and status in its own UI
 * instead of `<tradescript-bridge>` (which is built on it). Only the page side
 * is bundled here; the connection, sessions and credential stores run in the
 * worker (`worker.ts`), and the extension's service worker imports them from
 * their own modules (`connection.ts`, `credentialStore.ts`, `runtime.ts`). Any
 * new export here becomes public API.
 */
export { connectBridge, SESSION_STORAGE_KEY } from './page/connectBridge.js';
export { BRIDGE_VERSION } from './page/version.js';
export type { BridgeHandle, BridgeState, BridgeStatus, ConnectOptions } from './page/bridgeTypes.js';
