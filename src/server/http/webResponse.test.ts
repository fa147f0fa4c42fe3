/**
 * sendWebResponse over a real socket: a quick answer in one piece (as JSON
 * when it was one message and the client accepts JSON), a stream that stays
 * open streaming on, a slow one showing its headers first (SPEC §12, §13).
 */
import { createServer, request as httpRequest, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, test } from 'vitest';
import { loneMessageData, sendWebResponse, type SendOptions } from './webResponse.js';

const MESSAGE = '{"result":{"content":[]},"jsonrpc":"2.0","id":1}';
const EVENT = `event: message\ndata: ${MESSAGE}\n\n`;
const SSE_HEADERS = { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', 'x-accel-buffering': 'no' };

const servers: Server[] = [];
afterEach(async () => {
  for (const server of servers.splice(0)) {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
});

/** A stream the test writes events into (as the SDK's transports do). */
function eventStream() {
  let controller!: ReadableStreamDefaultController<Uint8Array>;
  const stream = new ReadableStream<Uint8Array>({ start: (c) => void (controller = c) });
  return {
    stream,
    event: (text: string) => controller.enqueue(new TextEncoder().encode(text)),
    close: () => controller.close(),
  };
}

interface Received {
  status: number;
  headers: IncomingHttpHeaders;
  /** Body chunks as they arrived. */
  chunks: string[];
  /** Resolves with the whole body once it ended. */
  ended: Promise<string>;
}

/** Serves `respond()` once with `options` and returns what the client sees, from its headers on. */
async function exchange(respond: () => Response, options: SendOptions): Promise<Received> {
  const server = createServer((_req, res) => void sendWebResponse(res, respond(), options));
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return new Promise((resolve, reject) => {
    const req = httpRequest({ host: '127.0.0.1', port, method: 'POST', path: '/mcp' }, (res) => {
      const chunks: string[] = [];
      const ended = new Promise<string>((done) => {
        res.on('data', (chunk: Buffer) => chunks.push(chunk.toString()));
        res.on('end', () => done(chunks.join('')));
      });
      resolve({ status: res.statusCode ?? 0, headers: res.headers, chunks, ended });
    });
    req.on('error', reject);
    req.end('{}');
  });
}

describe('loneMessageData', () => {
  test('SPEC §13 reads exactly one message event with one data line, nothing else', () => {
    expect(loneMessageData(Buffer.from(EVENT))?.toString()).toBe(MESSAGE);
    for (const other of [
      `id: 7\n${EVENT}`,
      `${EVENT}${EVENT}`,
      `: keepalive\n\n${EVENT}`,
      `event: message\ndata: ${MESSAGE}\n`,
      `event: message\ndata: {"a":\ndata: 1}\n\n`,
      `event: other\ndata: ${MESSAGE}\n\n`,
      'event: message\ndata: \n\n',
    ]) {
      expect(loneMessageData(Buffer.from(other)), JSON.stringify(other)).toBeNull();
    }
  });
});

describe('sendWebResponse (SPEC §12)', () => {
  test('a held answer stream that ends with one message goes to a JSON-accepting client as application/json', async () => {
    const got = await exchange(
      () => {
        const s = eventStream();
        queueMicrotask(() => (s.event(EVENT), s.close()));
        return new Response(s.stream, { headers: SSE_HEADERS });
      },
      { holdHeaders: true, acceptsJson: true },
    );
    expect(got.status).toBe(200);
    expect(got.headers['content-type']).toBe('application/json');
    expect(got.headers['content-length']).toBe(String(MESSAGE.length));
    expect(got.headers['x-accel-buffering']).toBeUndefined();
    expect(await got.ended).toBe(MESSAGE);
  });

  test('without application/json accepted, the ended stream stays an event stream, sent whole', async () => {
    const got = await exchange(
      () => {
        const s = eventStream();
        queueMicrotask(() => (s.event(EVENT), s.close()));
        return new Response(s.stream, { headers: SSE_HEADERS });
      },
      { holdHeaders: true, acceptsJson: false },
    );
    expect(got.headers['content-type']).toBe('text/event-stream');
    expect(got.headers['content-length']).toBe(String(EVENT.length));
    expect(await got.ended).toBe(EVENT);
  });

  test('SPEC §3 a stream still open after its first event (progress) streams on: the event arrives before the next is written', async () => {
    const s = eventStream();
    const progress = 'event: message\ndata: {"method":"notifications/progress","jsonrpc":"2.0"}\n\n';
    const got = await exchange(
      () => {
        queueMicrotask(() => s.event(progress));
        return new Response(s.stream, { headers: SSE_HEADERS });
      },
      { holdHeaders: true, acceptsJson: true },
    );
    expect(got.headers['content-type']).toBe('text/event-stream');
    expect(got.headers['content-length']).toBeUndefined();
    await waitUntil(() => got.chunks.join('') === progress);
    s.event(EVENT);
    s.close();
    expect(await got.ended).toBe(progress + EVENT);
  });

  test('an answer stream with no event within HOLD_HEADERS_MS sends its headers first, then streams', async () => {
    const s = eventStream();
    const got = await exchange(() => new Response(s.stream, { headers: SSE_HEADERS }), {
      holdHeaders: true,
      acceptsJson: true,
    });
    expect(got.headers['content-type']).toBe('text/event-stream');
    expect(got.chunks).toEqual([]);
    s.event(EVENT);
    s.close();
    expect(await got.ended).toBe(EVENT);
  });

  test('a stream that is not held (a GET stream) sends its headers at once', async () => {
    const s = eventStream();
    const got = await exchange(() => new Response(s.stream, { headers: SSE_HEADERS }), {});
    expect(got.headers['content-type']).toBe('text/event-stream');
    expect(got.chunks).toEqual([]);
    s.close();
    expect(await got.ended).toBe('');
  });

  test('a JSON body goes out with its Content-Length', async () => {
    const got = await exchange(() => Response.json({ ok: true }, { status: 202 }), {});
    expect(got.status).toBe(202);
    expect(got.headers['content-length']).toBe('{"ok":true}'.length.toString());
    expect(await got.ended).toBe('{"ok":true}');
  });
});

async function waitUntil(check: () => boolean): Promise<void> {
  for (let i = 0; i < 200 && !check(); i++) await new Promise((resolve) => setTimeout(resolve, 5));
  expect(check()).toBe(true);
}
