/**
 * Node's `http` request and response as the web-standard `Request` and
 * `Response` the MCP SDK v2 serves (SPEC §11). The body is read and parsed once
 * by us (bounded, see `body.ts`) and handed to the SDK as its `parsedBody`, so
 * the web request carries none (a body there cost a stream per request that
 * nothing read). A JSON answer leaves in one write, headers and body
 * together; an event stream (SSE for progress and `subscriptions/listen`)
 * streams back chunk by chunk. The
 * request's signal aborts when the client goes away, which is how a
 * 2026-07-28 client cancels a call over HTTP.
 */
import type { IncomingHttpHeaders, IncomingMessage, ServerResponse } from 'node:http';

/**
 * A web `Request` whose `signal` is the one it was made with. Undici's own
 * `Request` copies a given signal into one it makes (an abort listener,
 * `getMaxListeners`, a finalization registry: about three times the cost
 * of the rest of the request); this hands the SDK the connection's signal
 * itself. Everything else is the plain `Request`.
 */
class NodeRequest extends Request {
  readonly #signal: AbortSignal;

  constructor(url: string, init: RequestInit, signal: AbortSignal) {
    super(url, init);
    this.#signal = signal;
  }

  override get signal(): AbortSignal {
    return this.#signal;
  }
}

/**
 * A web `Request` for `req`, without its body (the SDK is handed the parsed
 * body), and a signal that aborts when `res` closes early.
 */
export function toWebRequest(req: IncomingMessage, res: ServerResponse): Request {
  const controller = new AbortController();
  res.once('close', () => {
    if (!res.writableFinished) controller.abort();
  });
  const url = `http://${req.headers.host ?? 'localhost'}${req.url ?? '/'}`;
  return new NodeRequest(url, { method: req.method ?? 'GET', headers: headersInit(req.headers) }, controller.signal);
}

/**
 * Node's header record as the `Request`'s headers, filled once by the
 * `Request` itself (a `Headers` built here is copied again, entry by entry,
 * into the request's own). When every value is one string the record goes as
 * is: its names are unique, so the `Request` appending each equals setting
 * it. Otherwise (a repeated `set-cookie` gives an array; `undefined` is
 * skipped; a header named `__proto__`, which Node drops anyway) a `Headers`
 * built here as before, whose copy also trims what appending the parts joined.
 * `webBridge.test.ts` holds both to the former path over generated, mutated
 * and hostile records.
 */
export function headersInit(headers: IncomingHttpHeaders): HeadersInit {
  for (const name in headers) {
    // A record is copied into a plain object first, where `__proto__` would not stay a key.
    if (typeof headers[name] !== 'string' || name === '__proto__') return builtHeaders(headers);
  }
  return headers as Record<string, string>;
}

function builtHeaders(headers: IncomingHttpHeaders): Headers {
  const built = new Headers();
  for (const [name, value] of Object.entries(headers)) {
    if (value === undefined) continue;
    if (Array.isArray(value)) for (const one of value) built.append(name, one);
    else built.set(name, value);
  }
  return built;
}

/**
 * How long a `tools/call` event stream keeps its headers back when no event
 * comes (see {@link sendWebResponse}); then they go alone, as for any stream.
 */
export const HELD_HEADERS_MS = 1_000;

/**
 * Writes `response` to `res`; resolves when it ended or the client left.
 *
 * - A body that is not an event stream (a JSON answer, an error) is whole
 *   when the SDK hands it over: it is read at once and written with its
 *   headers and `Content-Length` in one write, one packet for the client.
 * - An event stream streams. Its headers go at once, so the client knows the
 *   stream is open, unless `holdHeadersMs` (a `tools/call` stream, whose
 *   client waits for the answer anyway: {@link HELD_HEADERS_MS}); then they
 *   go with the first event, or alone once that time passed with none.
 *   (Node's `http` holds each write until the end of the turn, so an event
 *   and the stream's end that follow each other share one write.)
 */
export async function sendWebResponse(res: ServerResponse, response: Response, holdHeadersMs = 0): Promise<void> {
  const headers: Record<string, string> = {};
  response.headers.forEach((value, name) => (headers[name] = value));
  if (!response.body) {
    res.writeHead(response.status, headers);
    res.end();
    return;
  }
  if (!isEventStream(headers['content-type'])) {
    const body = await wholeBody(response.body);
    if (res.destroyed) return;
    headers['content-length'] = String(body.byteLength);
    res.writeHead(response.status, headers);
    res.end(body);
    return;
  }
  res.writeHead(response.status, headers);
  let held: NodeJS.Timeout | undefined;
  if (holdHeadersMs > 0) {
    held = setTimeout(() => {
      held = undefined;
      if (!res.destroyed) res.flushHeaders();
    }, holdHeadersMs);
    held.unref();
  } else {
    res.flushHeaders();
  }
  const reader = response.body.getReader();
  const cancel = () => void reader.cancel().catch(() => undefined);
  res.once('close', cancel);
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      if (res.destroyed) break;
      if (held !== undefined) {
        clearTimeout(held);
        held = undefined;
      }
      res.write(value);
    }
  } catch {
    // The stream was cancelled because the client left; nothing more to write.
  } finally {
    if (held !== undefined) clearTimeout(held);
    res.off('close', cancel);
    if (!res.destroyed) res.end();
  }
}

/**
 * Writes a JSON answer as {@link sendWebResponse} writes a `Response.json`
 * with `Content-Type: application/json`: `status`, that content type and the
 * UTF-8 `Content-Length`, headers and body in one write. False (nothing
 * written) when the response already started or its socket is gone; the
 * caller then answers the usual way.
 */
export function writeJsonAnswer(res: ServerResponse, status: number, text: string): boolean {
  if (res.headersSent || res.destroyed) return false;
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(text)) });
  res.end(text);
  return true;
}

/**
 * A whole body's bytes, read straight from its stream: a JSON answer made
 * with `Response.json` is one chunk, handed over as is (`arrayBuffer()`
 * would copy it through its own collector).
 */
async function wholeBody(body: ReadableStream<Uint8Array>): Promise<Uint8Array> {
  const reader = body.getReader();
  const chunks: Uint8Array[] = [];
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    chunks.push(value);
  }
  return chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks);
}

function isEventStream(contentType: string | undefined): boolean {
  return contentType !== undefined && contentType.toLowerCase().startsWith('text/event-stream');
}
