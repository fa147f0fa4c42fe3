/**
 * Bounded request bodies: a declared or observed size over the bound is
 * refused before anything is parsed.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';

/** The body of `/mcp` requests may be at most 4 MB (SPEC §6 turns >256 KB arguments into request_too_large). */
export const MAX_MCP_BODY_BYTES = 4 * 1024 * 1024;

/** The body text, or `null` when it was over `maxBytes`. */
export async function readBody(req: IncomingMessage, maxBytes: number): Promise<string | null> {
  const declared = Number(req.headers['content-length'] ?? '0');
  if (declared > maxBytes) return null;
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > maxBytes) return null;
    chunks.push(chunk);
  }
  return Buffer.concat(chunks).toString('utf8');
}

/** Writes a small JSON answer. */
export function sendJson(
  res: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
): void {
  const text = JSON.stringify(body);
  res.writeHead(status, {
    'Content-Type': 'application/json',
    'Content-Length': Buffer.byteLength(text),
    'X-Content-Type-Options': 'nosniff',
    'Cache-Control': 'no-store',
    ...headers,
  });
  res.end(text);
}

/** A JSON-RPC error answer (for `/mcp` refusals outside the SDK). */
export function sendJsonRpcError(res: ServerResponse, status: number, code: number, message: string): void {
  sendJson(res, status, { jsonrpc: '2.0', error: { code, message }, id: null });
}
