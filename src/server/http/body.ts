/**
 * Bounded request bodies: a declared or observed size over the bound is
 * refused before anything is parsed.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';

/** The body of `/mcp` requests may be at most 4 MB (SPEC §6 turns >256 KB arguments into request_too_large). */
export const MAX_MCP_BODY_BYTES = 4 * 1024 * 1024;

/**
 * The body text, or `null` when it was over `maxBytes` (the request is then
 * destroyed, as leaving a `for await` over it would). Rejects when the
 * request fails or closes before its end.
 */
export function readBody(req: IncomingMessage, maxBytes: number): Promise<string | null> {
  const declared = Number(req.headers['content-length'] ?? '0');
  if (declared > maxBytes) return Promise.resolve(null);
  if (req.readableEnded) return Promise.resolve('');
  if (req.destroyed) return Promise.reject(new Error('The request closed before its body ended.'));
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const done = (): void => {
      req.off('data', onData);
      req.off('end', onEnd);
      req.off('error', onError);
      req.off('close', onClose);
    };
    const onData = (chunk: Buffer): void => {
      size += chunk.length;
      if (size > maxBytes) {
        done();
        req.destroy();
        resolve(null);
        return;
      }
      chunks.push(chunk);
    };
    const onEnd = (): void => {
      done();
      resolve(chunks.length === 1 ? chunks[0]!.toString('utf8') : Buffer.concat(chunks).toString('utf8'));
    };
    const onError = (error: Error): void => {
      done();
      reject(error);
    };
    const onClose = (): void => {
      done();
      reject(new Error('The request closed before its body ended.'));
    };
    req.on('data', onData);
    req.on('end', onEnd);
    req.on('error', onError);
    req.on('close', onClose);
  });
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
