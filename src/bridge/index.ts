/**
 * `tradescript-mcp/bridge`, the bridge's page entry (SPEC §1, §2):
 * {@link connectBridge} connects a terminal's host SDK to the relay and starts
 * the bridge worker, for a terminal that shows pairing and status in its own
 * UI instead of `<tradescript-bridge>` (which is built on it). The connection,
 * the session and the credential store run on the page (`runtime/`), the
 * subscriptions, snapshots and the relay's timers in the worker (`worker.ts`);
 * the extension's service worker imports the relay client and the observer
 * from their own modules. Any new export here becomes public API.
 */
export { connectBridge, SESSION_STORAGE_KEY } from './page/connectBridge.js';
export { BRIDGE_VERSION } from './page/version.js';
export type { BridgeHandle, BridgeState, BridgeStatus, ConnectOptions } from './page/bridgeTypes.js';
