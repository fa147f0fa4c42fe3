/**
 * Node's `http` request and response as the web-standard `Request` and
 * `Response` the MCP SDK v2 serves (SPEC §11). The body is read and parsed once
 * by us (bounded, see `body.ts`) and handed to the SDK as its `parsedBody`, so
 * the web request carries none (a body there cost a stream per request that
 * nothing read); the response streams back
 * chunk by chunk (SSE for progress and `subscriptions/listen`), and the
 * request's signal aborts when the client goes away, which is how a
 * 2026-07-28 client cancels a call over HTTP.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';

/**
 * A web `Request` for `req`, without its body (the SDK is handed the parsed
 * body), and a signal that aborts when `res` closes early.
 */
export function toWebRequest(req: IncomingMessage, res: ServerResponse): Request {
  const controller = new AbortController();
  res.once('close', () => {
    if (!res.writableFinished) controller.abort();
  });
  const headers = new Headers();
  for (const [name, value] of Object.entries(req.headers)) {
    if (value === undefined) continue;
    if (Array.isArray(value)) for (const one of value) headers.append(name, one);
    else headers.set(name, value);
  }
  const url = `http://${req.headers.host ?? 'localhost'}${req.url ?? '/'}`;
  return new Request(url, { method: req.method ?? 'GET', headers, signal: controller.signal });
}

/** Writes `response` to `res`, streaming its body; resolves when it ended or the client left. */
export async function sendWebResponse(res: ServerResponse, response: Response): Promise<void> {
  const headers: Record<string, string> = {};
  response.headers.forEach((value, name) => (headers[name] = value));
  res.writeHead(response.status, headers);
  if (!response.body) {
    res.end();
    return;
  }
  res.flushHeaders();
  const reader = response.body.getReader();
  const cancel = () => void reader.cancel().catch(() => undefined);
  res.once('close', cancel);
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      if (res.destroyed) break;
      res.write(value);
    }
  } catch {
    // The stream was cancelled because the client left; nothing more to write.
  } finally {
    res.off('close', cancel);
    if (!res.destroyed) res.end();
  }
}
