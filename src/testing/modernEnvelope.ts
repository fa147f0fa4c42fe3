/**
 * Raw 2026-07-28 requests for tests that write the wire themselves (SPEC §13):
 * the envelope a request carries in `params._meta`, and a `tools/call` line of
 * either revision. Not product code.
 */

/** The two protocol revisions a raw line can be written for. */
export type WireEra = '2025-11-25' | '2026-07-28';

/** The `_meta` envelope of a 2026-07-28 request from client `name`. */
export function modernMeta(name = 'raw'): Record<string, unknown> {
  return {
    'io.modelcontextprotocol/protocolVersion': '2026-07-28',
    'io.modelcontextprotocol/clientCapabilities': {},
    'io.modelcontextprotocol/clientInfo': { name, version: '1' },
  };
}

/**
 * One `tools/call` line with `params` as given (undefined: none sent). On
 * 2026-07-28 object params get the envelope merged into their `_meta`; a
 * `_meta` that is not an object is sent as it is, still broken.
 */
export function toolsCallLine(id: string, era: WireEra, params: unknown): string {
  let sent = params;
  if (era === '2026-07-28' && params !== null && typeof params === 'object' && !Array.isArray(params)) {
    const meta = (params as { _meta?: unknown })._meta;
    const envelope = modernMeta();
    const merged =
      meta === undefined ? envelope : typeof meta === 'object' && meta !== null ? { ...meta, ...envelope } : meta;
    sent = { ...params, _meta: merged };
  }
  return JSON.stringify({ jsonrpc: '2.0', id, method: 'tools/call', ...(sent === undefined ? {} : { params: sent }) });
}
