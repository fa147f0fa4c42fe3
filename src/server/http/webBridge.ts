/**
 * Node's `http` request and response as the web-standard `Request` and
 * `Response` the MCP SDK v2 serves (SPEC §11). The body is read and parsed once
 * by us (bounded, see `body.ts`) and handed to the SDK as its `parsedBody`, so
 * the web request carries none (a body there cost a stream per request that
 * nothing read); the request's signal aborts when the client goes away, which
 * is how a 2026-07-28 client cancels a call over HTTP.
 *
 * A response goes out in as few writes as it can (`webResponse.ts`): a JSON
 * body in one, and a call's event stream held until its first event, so a
 * quick answer is one write too, sent as JSON when the client accepts it.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';

export { sendWebResponse, type SendOptions } from './webResponse.js';

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
