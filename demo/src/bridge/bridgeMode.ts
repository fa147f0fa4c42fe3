/**
 * How this tab reaches the MCP server: through the `<tradescript-bridge>`
 * element and its worker (the default), or through the TradeScript Chrome
 * extension (`?bridge=extension`), which holds the relay address and the
 * credential itself.
 */

/** The two ways the terminal's host SDK is offered to MCP clients. */
export type BridgeMode = 'element' | 'extension';

/** `?bridge=extension` picks the extension; anything else keeps the element. */
export function readBridgeMode(search: string): BridgeMode {
  return new URLSearchParams(search).get('bridge') === 'extension' ? 'extension' : 'element';
}
