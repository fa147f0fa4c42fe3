import {
  createServer,
  request as httpRequest,
  type IncomingHttpHeaders,
  type IncomingMessage,
  type Server,
  type ServerResponse,
} from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import fc from 'fast-check';
import { afterEach, describe, expect, it } from 'vitest';
import { headersInit, sendWebResponse, toWebRequest, writeJsonAnswer } from './webBridge.js';

const servers: Server[] = [];

afterEach(async () => {
  for (const server of servers.splice(0)) {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
});

interface Served {
  url: string;
  /** Socket writes the server made for the last response (write and writev calls, headers included). */
  writes: () => number;
}

/** Calls `counted` for every write and writev the response's socket makes from now on (headers included). */
function countWrites(res: ServerResponse, counted: () => void): void {
  const socket = res.socket as Socket & { _write: Socket['_write']; _writev?: Socket['_writev'] };
  const write = socket._write.bind(socket);
  const writev = socket._writev?.bind(socket);
  socket._write = (...args) => (counted(), write(...args));
  if (writev) socket._writev = (...args) => (counted(), writev(...args));
}

/** A server answering every request with `respond()` through {@link sendWebResponse}, counting its socket writes. */
async function serve(respond: () => Response, holdHeadersMs = 0): Promise<Served> {
  let writes = 0;
  const server = createServer((req, res) => {
    writes = 0;
    countWrites(res, () => writes++);
    void sendWebResponse(res, respond(), holdHeadersMs);
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/`, writes: () => writes };
}

/** The response and its whole body, with when the headers arrived (ms since `start`). */
function get(url: string): Promise<{ res: IncomingMessage; body: string; headersAt: number }> {
  const start = Date.now();
  return new Promise((resolve, reject) => {
    const req = httpRequest(url, { method: 'POST', agent: false }, (res) => {
      const headersAt = Date.now() - start;
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (body += chunk));
      res.on('end', () => resolve({ res, body, headersAt }));
    });
    req.on('error', reject);
    req.end();
  });
}

const EVENT = 'event: message\ndata: {"jsonrpc":"2.0","id":1,"result":{}}\n\n';

/** An event stream that sends `events` after `delayMs`, then ends in the same turn. */
function eventStream(events: string[], delayMs: number): Response {
  const encoder = new TextEncoder();
  const body = new ReadableStream<Uint8Array>({
    start(controller) {
      setTimeout(() => {
        for (const event of events) controller.enqueue(encoder.encode(event));
        controller.close();
      }, delayMs);
    },
  });
  return new Response(body, { status: 200, headers: { 'Content-Type': 'text/event-stream' } });
}

describe('sendWebResponse', () => {
  it('writes a JSON answer whole: headers, Content-Length and body in one write', async () => {
    const answer = { jsonrpc: '2.0', id: 7, result: { content: [{ type: 'text', text: 'é'.repeat(3000) }] } };
    const served = await serve(() => Response.json(answer, { status: 200, headers: { 'X-Extra': 'kept' } }));
    const { res, body } = await get(served.url);
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-length']).toBe(String(Buffer.byteLength(body)));
    expect(res.headers['transfer-encoding']).toBeUndefined();
    expect(res.headers['x-extra']).toBe('kept');
    expect(JSON.parse(body)).toEqual(answer);
    expect(served.writes()).toBe(1);
  });

  it('answers a response without a body with its status alone', async () => {
    const served = await serve(() => new Response(null, { status: 202 }));
    const { res, body } = await get(served.url);
    expect(res.statusCode).toBe(202);
    expect(body).toBe('');
  });

  it('sends an event stream’s headers at once, and an event with the stream’s end in one write', async () => {
    const served = await serve(() => eventStream([EVENT], 300));
    const { res, body, headersAt } = await get(served.url);
    expect(res.headers['content-type']).toBe('text/event-stream');
    expect(headersAt).toBeLessThan(300);
    expect(body).toBe(EVENT);
    // The headers, then the event with the chunked terminator.
    expect(served.writes()).toBe(2);
  });

  it('a held stream sends its headers with its first event: one write for the whole answer', async () => {
    const served = await serve(() => eventStream([EVENT, EVENT], 60), 5_000);
    const { body, headersAt } = await get(served.url);
    expect(headersAt).toBeGreaterThanOrEqual(55);
    expect(body).toBe(EVENT + EVENT);
    expect(served.writes()).toBe(1);
  });

  it('a held stream with no event sends its headers alone when the hold ends', async () => {
    const served = await serve(() => eventStream([EVENT], 400), 40);
    const { body, headersAt } = await get(served.url);
    expect(headersAt).toBeLessThan(400);
    expect(body).toBe(EVENT);
    expect(served.writes()).toBe(2);
  });
});

describe('sendWebResponse with a body of several chunks', () => {
  it('writes a JSON body that came in several chunks whole, in one write', async () => {
    const parts = ['{"jsonrpc":"2.0",', '"id":3,', '"result":{"text":"', 'é'.repeat(500), '"}}'];
    const served = await serve(() => {
      const encoder = new TextEncoder();
      const body = new ReadableStream<Uint8Array>({
        start(controller) {
          for (const part of parts) controller.enqueue(encoder.encode(part));
          controller.close();
        },
      });
      return new Response(body, { status: 200, headers: { 'Content-Type': 'application/json' } });
    });
    const { res, body } = await get(served.url);
    expect(body).toBe(parts.join(''));
    expect(res.headers['content-length']).toBe(String(Buffer.byteLength(body)));
    expect(served.writes()).toBe(1);
  });
});

describe('writeJsonAnswer', () => {
  /** What a client receives: status, raw headers in order (but `Date`), the body's bytes, the server's writes. */
  async function received(url: string, writes: () => number) {
    const { res, body } = await new Promise<{ res: IncomingMessage; body: Buffer }>((resolve, reject) => {
      const req = httpRequest(url, { method: 'POST', agent: false }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () => resolve({ res, body: Buffer.concat(chunks) }));
      });
      req.on('error', reject);
      req.end();
    });
    const raw = res.rawHeaders;
    const headers = raw.flatMap((h, i) => (i % 2 === 0 && h.toLowerCase() !== 'date' ? [[h, raw[i + 1]]] : []));
    return { status: res.statusCode, headers, body: body.toString('hex'), writes: writes() };
  }

  /** Lone surrogates, astral characters, U+2028: what JSON.stringify and UTF-8 encoding must agree on. */
  const text = fc.oneof(
    fc.string({ unit: 'binary', maxLength: 40 }),
    fc.string({ unit: fc.integer({ min: 0xd800, max: 0xdfff }).map((c) => String.fromCharCode(c)), maxLength: 4 }),
    fc.constantFrom('\u2028\u2029', 'é'.repeat(2000), '\u{1F600}', ''),
  );
  const message = fc.record({
    jsonrpc: fc.constant('2.0'),
    id: fc.oneof(fc.integer(), fc.string({ maxLength: 8 })),
    result: fc.record({
      content: fc.array(fc.record({ type: fc.constant('text'), text }), { maxLength: 3 }),
      extra: fc.jsonValue({ maxDepth: 3 }),
    }),
  });

  it('SPEC §13 puts on the wire what sendWebResponse puts there for the SDK’s Response.json: status, headers, bytes, one write', async () => {
    let value: unknown = null;
    let status = 200;
    let writes = 0;
    const server = createServer((req, res) => {
      writes = 0;
      countWrites(res, () => writes++);
      if (req.url === '/ours') expect(writeJsonAnswer(res, status, JSON.stringify(value))).toBe(true);
      else void sendWebResponse(res, Response.json(value, { status, headers: { 'Content-Type': 'application/json' } }));
    });
    servers.push(server);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    await fc.assert(
      fc.asyncProperty(message, fc.constantFrom(200, 200, 400, 500), async (generated, code) => {
        value = generated;
        status = code;
        const theirs = await received(`${base}/sdk`, () => writes);
        const ours = await received(`${base}/ours`, () => writes);
        expect(ours).toEqual(theirs);
        expect(ours.writes).toBe(1);
      }),
      { numRuns: 300 },
    );
  });

  it('writes nothing and says so once the response started or its socket is gone', async () => {
    const outcomes: boolean[] = [];
    const server = createServer((req, res) => {
      if (req.url === '/gone') {
        res.destroy();
        outcomes.push(writeJsonAnswer(res, 200, '{}'));
        return;
      }
      res.writeHead(202);
      res.flushHeaders();
      outcomes.push(writeJsonAnswer(res, 200, '{"late":true}'));
      res.end();
    });
    servers.push(server);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    const { res, body } = await get(`${base}/started`);
    expect([res.statusCode, body]).toEqual([202, '']);
    await expect(get(`${base}/gone`)).rejects.toThrow();
    expect(outcomes).toEqual([false, false]);
  });
});

describe('toWebRequest', () => {
  /** A server handing each request's web `Request` to `seen`, answering once `answer` resolves. */
  async function capture(answer: () => Promise<void>): Promise<{ url: string; seen: Promise<Request> }> {
    let resolveSeen!: (request: Request) => void;
    const seen = new Promise<Request>((resolve) => (resolveSeen = resolve));
    const server = createServer((req, res) => {
      resolveSeen(toWebRequest(req, res));
      void answer().then(() => res.end('done'));
    });
    servers.push(server);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp?x=1`, seen };
  }

  it('is a web Request with the method, URL and headers of the Node request, repeated ones joined', async () => {
    const { url, seen } = await capture(() => Promise.resolve());
    const req = httpRequest(url, { method: 'POST', agent: false });
    req.setHeader('Mcp-Method', 'tools/call');
    req.setHeader('X-Twice', ['a', 'b']);
    req.end();
    const request = await seen;
    expect(request).toBeInstanceOf(Request);
    expect(request.method).toBe('POST');
    expect(request.url).toBe(url);
    expect(request.headers.get('mcp-method')).toBe('tools/call');
    expect(request.headers.get('x-twice')).toBe('a, b');
    await new Promise((resolve) => req.on('response', (res) => res.resume().on('end', resolve)));
    // Answered in full: the signal never aborts.
    expect(request.signal.aborted).toBe(false);
  });

  it('its signal aborts when the client goes away before the answer', async () => {
    let release!: () => void;
    const { url, seen } = await capture(() => new Promise<void>((resolve) => (release = resolve)));
    const req = httpRequest(url, { method: 'POST', agent: false });
    req.on('error', () => undefined);
    req.end();
    const request = await seen;
    expect(request.signal.aborted).toBe(false);
    const aborted = new Promise((resolve) => request.signal.addEventListener('abort', resolve, { once: true }));
    req.destroy();
    await aborted;
    expect(request.signal.aborted).toBe(true);
    release();
  });
});

describe('headersInit', () => {
  /** The headers toWebRequest built before (6bd4779…63a315f): a `Headers` set and appended entry by entry. */
  function formerHeaders(headers: IncomingHttpHeaders): Headers {
    const built = new Headers();
    for (const [name, value] of Object.entries(headers)) {
      if (value === undefined) continue;
      if (Array.isArray(value)) for (const one of value) built.append(name, one);
      else built.set(name, value);
    }
    return built;
  }

  /** A request's headers as given by `init`, or the error's class when they are refused. */
  function outcome(make: () => HeadersInit | Headers): { entries: [string, string][] } | { threw: string } {
    try {
      const request = new Request('http://127.0.0.1/mcp', { method: 'POST', headers: make() });
      return { entries: [...request.headers] };
    } catch (error) {
      return { threw: (error as Error).constructor.name };
    }
  }

  const token = fc.stringMatching(/^[!#$%&'*+.^_`|~0-9a-z-]{1,12}$/);
  const name = fc.oneof(
    { weight: 6, arbitrary: token },
    {
      weight: 2,
      arbitrary: fc.constantFrom(
        'host',
        'content-type',
        'accept',
        'mcp-session-id',
        'set-cookie',
        'origin',
        '__proto__',
      ),
    },
    // Hostile: not a header name at all.
    { weight: 1, arbitrary: fc.string({ maxLength: 6 }) },
  );
  const value = fc.oneof(
    {
      weight: 6,
      arbitrary: fc.string({
        unit: fc.integer({ min: 0x20, max: 0x7e }).map((c) => String.fromCharCode(c)),
        maxLength: 20,
      }),
    },
    // As Node's parser hands over obs-text: latin1, and padding the Headers trim.
    {
      weight: 2,
      arbitrary: fc.string({
        unit: fc.integer({ min: 0, max: 0xff }).map((c) => String.fromCharCode(c)),
        maxLength: 8,
      }),
    },
    { weight: 1, arbitrary: fc.constantFrom('', ' padded\t', 'a, b') },
    // Hostile: not a ByteString, or a line break.
    { weight: 1, arbitrary: fc.constantFrom('é€', 'x\r\ny: z', '\u0000', '\u{1F600}') },
  );
  const record: fc.Arbitrary<IncomingHttpHeaders> = fc
    .dictionary(
      name,
      fc.oneof(
        { weight: 8, arbitrary: value },
        { weight: 1, arbitrary: fc.array(value, { maxLength: 3 }) },
        { weight: 1, arbitrary: fc.constant(undefined) },
      ),
      { maxKeys: 12 },
    )
    // Node's `req.headers` has no prototype.
    .map((entries) => Object.assign(Object.create(null) as IncomingHttpHeaders, entries));

  it('gives the Request the headers the former Headers gave it, or refuses the same inputs', () => {
    fc.assert(
      fc.property(record, (headers) => {
        expect(outcome(() => headersInit(headers))).toEqual(outcome(() => formerHeaders(headers)));
      }),
      { numRuns: 3_000 },
    );
  });

  it('passes a record of single values as it is', () => {
    const single: IncomingHttpHeaders = { host: '127.0.0.1:1', accept: 'application/json' };
    expect(headersInit(single)).toBe(single);
    expect(headersInit({ host: 'h', 'set-cookie': ['a=1', 'b=2'] })).toBeInstanceOf(Headers);
  });
});
