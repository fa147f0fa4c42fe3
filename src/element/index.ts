/**
 * The `<tradescript-bridge>` web component (SPEC §10): pairing, status, the
 * grant for MCP attachments, the activity feed, "detach all" and the opt-in
 * "confirm trades" mode, for any terminal that mounts the host SDK.
 *
 * ```ts
 * const gate = createConfirmGate();
 * const host = createTerminalHost({ environment: 'paper', confirm: gate.confirm });
 * defineTradescriptBridge();
 * const element = document.querySelector('tradescript-bridge')!;
 * element.confirmGate = gate;
 * element.host = host; // with relay-url="ws://127.0.0.1:7391/relay" pair-from-url
 * ```
 *
 * Any new export here becomes public API.
 */
import { TradescriptBridgeElement } from './element.js';

export { TradescriptBridgeElement } from './element.js';
export { createConfirmGate } from './confirmGate.js';
export type { ConfirmGate, ConfirmGateOptions, ConfirmPresenter, ConfirmQuestion } from './confirmGate.js';
export { ACTIVITY_CAPACITY, ACTIVITY_DB_NAME } from './activityStore.js';
export { PAIR_COMMAND } from './pairCode.js';
export { CONFIRM_STORAGE_KEY, GRANT_STORAGE_KEY } from './tabStorage.js';
export { GRANT_EVENT, PAIR_LINK_EVENT, STATUS_EVENT } from './types.js';
export type { GrantChangeDetail, GrantSource, TradescriptBridgeEventMap } from './types.js';

/** The element's tag name. */
export const TRADESCRIPT_BRIDGE_TAG = 'tradescript-bridge';

/** Registers `<tradescript-bridge>` unless it is registered already; safe to call more than once. */
export function defineTradescriptBridge(): void {
  if (customElements.get(TRADESCRIPT_BRIDGE_TAG) === undefined) {
    customElements.define(TRADESCRIPT_BRIDGE_TAG, TradescriptBridgeElement);
  }
}
