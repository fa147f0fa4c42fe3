/**
 * Writes the SDK's web `Response` to Node's `ServerResponse` in as few socket
 * writes as it can (SPEC §12): each write is a syscall and wakes the client,
 * and on a loaded machine both sit on the call's path.
 *
 * - A JSON body (what a 2026-07-28 call answers with when it sent no
 *   notification first) goes out with its headers in one write.
 * - An event stream answering one request holds its headers until its first
 *   event, for at most {@link HOLD_HEADERS_MS}, so a quick answer is one
 *   write. When the stream then ends with nothing but that one message (the
 *   2025-11-25 transport answers every call as an event stream), the message
 *   goes out as `application/json` if the client accepts it, which Streamable
 *   HTTP allows for any POST and which the client reads without an event
 *   parser. A stream still open after its first events (progress) streams on,
 *   each event as it comes; a standalone GET stream is never held.
 */
import type { ServerResponse } from 'node:http';

/** How {@link sendWebResponse} may write a response. */
export interface SendOptions {
  /** The response answers one JSON-RPC request: its event stream may hold its headers for its first event. */
  holdHeaders?: boolean;
  /** The client accepts `application/json`: a held stream that was one message is sent as JSON. */
  acceptsJson?: boolean;
}

/** How long an answer's event stream keeps its headers back waiting for its first event. */
export const HOLD_HEADERS_MS = 50;

const EVENT_PREFIX = Buffer.from('event: message\ndata: ', 'latin1');
const LF = 0x0a;
const PAUSED = Symbol('paused');

type Chunk = ReadableStreamReadResult<Uint8Array>;

/**
 * The data of `bytes` when they are exactly one SSE `message` event with one
 * data line and no id (as the SDK writes a JSON-RPC message), else null.
 */
export function loneMessageData(bytes: Buffer): Buffer | null {
  const end = bytes.length - 2;
  if (end <= EVENT_PREFIX.length || bytes[end] !== LF || bytes[end + 1] !== LF) return null;
  if (!bytes.subarray(0, EVENT_PREFIX.length).equals(EVENT_PREFIX)) return null;
  if (bytes.indexOf(LF, EVENT_PREFIX.length) !== end) return null;
  return bytes.subarray(EVENT_PREFIX.length, end);
}

/** Writes `response` to `res`; resolves when it ended or the client left. */
export async function sendWebResponse(
  res: ServerResponse,
  response: Response,
  options: SendOptions = {},
): Promise<void> {
  const headers: Record<string, string> = {};
  response.headers.forEach((value, name) => (headers[name] = value));
  if (!response.body) {
    res.writeHead(response.status, headers).end();
    return;
  }
  if (!/^text\/event-stream\b/i.test(headers['content-type'] ?? '')) {
    const body = Buffer.from(await response.arrayBuffer());
    if (!res.destroyed) endWith(res, response.status, headers, body);
    return;
  }
  await streamEvents(res, response.status, headers, response.body.getReader(), options);
}

function endWith(res: ServerResponse, status: number, headers: Record<string, string>, body: Buffer): void {
  res.writeHead(status, { ...headers, 'content-length': String(body.length) }).end(body);
}

async function streamEvents(
  res: ServerResponse,
  status: number,
  headers: Record<string, string>,
  reader: ReadableStreamDefaultReader<Uint8Array>,
  options: SendOptions,
): Promise<void> {
  const cancel = () => void reader.cancel().catch(() => undefined);
  res.once('close', cancel);
  try {
    let pending = reader.read();
    const held: Uint8Array[] = [];
    if (options.holdHeaders) {
      const read = await readHeld(reader, held, pending);
      if (read.ended) return endHeld(res, status, headers, held, options.acceptsJson === true);
      pending = read.pending;
    }
    if (res.destroyed) return;
    res.writeHead(status, headers);
    // Headers alone go out now (the stream is open); with events they go out together.
    if (held.length === 0) res.flushHeaders();
    for (const chunk of held) res.write(chunk);
    for (;;) {
      const { done, value } = await pending;
      if (done || res.destroyed) break;
      res.write(value);
      pending = reader.read();
    }
  } catch {
    // The stream was cancelled because the client left; nothing more to write.
  } finally {
    res.off('close', cancel);
    if (!res.destroyed && !res.writableEnded) res.end();
  }
}

/**
 * Reads into `held` until the stream ends, or pauses: no first event within
 * {@link HOLD_HEADERS_MS}, or no further one within this turn of the event
 * loop. A pause hands back the read still outstanding.
 */
async function readHeld(
  reader: ReadableStreamDefaultReader<Uint8Array>,
  held: Uint8Array[],
  first: Promise<Chunk>,
): Promise<{ ended: true } | { ended: false; pending: Promise<Chunk> }> {
  let pending = first;
  for (;;) {
    const read = await within(pending, held.length === 0 ? HOLD_HEADERS_MS : 0);
    if (read === PAUSED) return { ended: false, pending };
    if (read.done) return { ended: true };
    held.push(read.value);
    pending = reader.read();
  }
}

/** `read`'s result, or PAUSED when it has not come within `ms` (0: by the end of this turn of the event loop). */
async function within(read: Promise<Chunk>, ms: number): Promise<Chunk | typeof PAUSED> {
  let timer: NodeJS.Timeout | NodeJS.Immediate | undefined;
  const paused = new Promise<typeof PAUSED>((resolve) => {
    timer = ms === 0 ? setImmediate(resolve, PAUSED) : setTimeout(resolve, ms, PAUSED);
  });
  try {
    return await Promise.race([read, paused]);
  } finally {
    if (ms === 0) clearImmediate(timer as NodeJS.Immediate);
    else clearTimeout(timer as NodeJS.Timeout);
  }
}

/** A held stream that ended: one write, as JSON when it was one message and the client accepts JSON. */
function endHeld(
  res: ServerResponse,
  status: number,
  headers: Record<string, string>,
  held: Uint8Array[],
  acceptsJson: boolean,
): void {
  if (res.destroyed) return;
  const bytes = Buffer.concat(held);
  const json = acceptsJson ? loneMessageData(bytes) : null;
  if (json === null) return endWith(res, status, headers, bytes);
  const asJson: Record<string, string> = { ...headers, 'content-type': 'application/json' };
  delete asJson['x-accel-buffering'];
  endWith(res, status, asJson, json);
}
