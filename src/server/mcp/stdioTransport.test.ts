import fc from 'fast-check';
import { StdioServerTransport } from '@modelcontextprotocol/server/stdio';
import {
  isJSONRPCErrorResponse,
  isJSONRPCNotification,
  isJSONRPCRequest,
  isJSONRPCResultResponse,
  specTypeSchemas,
  type JSONRPCMessage,
  type Transport,
} from '@modelcontextprotocol/server';
import { PassThrough, Writable } from 'node:stream';
import { isDeepStrictEqual } from 'node:util';
import { describe, expect, it } from 'vitest';
import { plainJsonRpc, plainJsonRpcRequest } from './jsonRpcShape.js';
import { StdioWire } from './stdioTransport.js';

const MessageSchema = specTypeSchemas.JSONRPCMessage as unknown as {
  safeParse(value: unknown): { success: true; data: unknown } | { success: false };
};

const CALL = {
  jsonrpc: '2.0',
  id: 7,
  method: 'tools/call',
  params: { name: 'tradescript_call', arguments: { sessionId: 's1', args: {} }, _meta: { progressToken: 7 } },
};

/** Often absent (then dropped by JSON), sometimes `arb`. */
const rarely = <T>(arb: fc.Arbitrary<T>) =>
  fc.oneof({ arbitrary: fc.constant(undefined), weight: 4 }, { arbitrary: arb, weight: 1 });
const mostly = <T>(usual: T, odd: fc.Arbitrary<unknown>) =>
  fc.oneof({ arbitrary: fc.constant<unknown>(usual), weight: 4 }, { arbitrary: odd, weight: 1 });

/** Values near a JSON-RPC message: each of its parts usual, wrong, absent or odd. */
const near = fc.record({
  jsonrpc: mostly('2.0', fc.constantFrom<unknown>('1.0', 2, null, undefined)),
  id: fc.oneof(
    fc.constant(undefined),
    fc.string(),
    fc.integer(),
    fc.double(),
    fc.constant(null),
    fc.constant(2 ** 60),
    fc.object(),
  ),
  method: mostly('tools/call', fc.oneof(fc.string(), fc.integer(), fc.constant(undefined))),
  params: fc.oneof(
    fc.constant(undefined),
    fc.constant(null),
    fc.array(fc.integer()),
    fc.dictionary(fc.string(), fc.jsonValue()),
    fc.record({
      _meta: fc.oneof(
        fc.constant(undefined),
        fc.constant(null),
        fc.string(),
        fc.record({
          progressToken: fc.oneof(fc.constant(undefined), fc.string(), fc.integer(), fc.double(), fc.constant(null)),
          'io.modelcontextprotocol/related-task': rarely(fc.oneof(fc.record({ taskId: fc.string() }), fc.integer())),
          other: fc.jsonValue(),
        }),
      ),
      name: fc.string(),
      __proto__: rarely(fc.object()),
    }),
  ),
  result: rarely(fc.object()),
  error: rarely(fc.record({ code: fc.integer(), message: fc.string() })),
  extra: rarely(fc.jsonValue()),
});

describe('plainJsonRpc', () => {
  it('vouches only for messages the SDK schema accepts, with the value its parse returns', () => {
    let vouched = 0;
    fc.assert(
      fc.property(near, (value) => {
        // Through JSON, as the wire reads it (a `__proto__` key included).
        const json = JSON.parse(JSON.stringify(value)) as unknown;
        if (!plainJsonRpc(json)) return;
        vouched += 1;
        const parsed = MessageSchema.safeParse(json);
        expect(parsed.success).toBe(true);
        expect(isDeepStrictEqual(parsed.success && parsed.data, json)).toBe(true);
      }),
      { numRuns: 3000 },
    );
    // The property is about something: the generator reaches plain messages too.
    expect(vouched).toBeGreaterThan(20);
  });

  it('vouches for the requests and notifications a client sends on every call', () => {
    expect(plainJsonRpc(CALL)).toBe(true);
    expect(plainJsonRpc({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 7 } })).toBe(true);
    expect(plainJsonRpc({ jsonrpc: '2.0', id: 'a', method: 'tools/list' })).toBe(true);
  });

  it('leaves responses, odd ids, a related task and __proto__ keys to the SDK', () => {
    expect(plainJsonRpc({ jsonrpc: '2.0', id: 1, result: {} })).toBe(false);
    expect(plainJsonRpc({ ...CALL, id: 1.5 })).toBe(false);
    expect(plainJsonRpc({ ...CALL, extra: 1 })).toBe(false);
    const related = { ...CALL, params: { _meta: { 'io.modelcontextprotocol/related-task': { taskId: 't' } } } };
    expect(plainJsonRpc(related)).toBe(false);
    expect(plainJsonRpc(JSON.parse('{"jsonrpc":"2.0","id":1,"method":"x","params":{"__proto__":{}}}'))).toBe(false);
  });
});

/** How the SDK's `Protocol.connect` sorts a message (SDK 2.4: responses first, then requests, then notifications). */
function sdkSorting(value: unknown): 'response' | 'request' | 'notification' | 'unknown' {
  if (isJSONRPCResultResponse(value) || isJSONRPCErrorResponse(value)) return 'response';
  if (isJSONRPCRequest(value)) return 'request';
  return isJSONRPCNotification(value) ? 'notification' : 'unknown';
}

describe('plainJsonRpcRequest', () => {
  it('issue 15: vouches only for messages the SDK sorts as requests, so ToolsCallServer may skip its sorting', () => {
    let vouched = 0;
    fc.assert(
      fc.property(near, (value) => {
        const json = JSON.parse(JSON.stringify(value)) as unknown;
        if (!plainJsonRpcRequest(json)) return;
        vouched += 1;
        expect(sdkSorting(json)).toBe('request');
      }),
      { numRuns: 3000 },
    );
    expect(vouched).toBeGreaterThan(20);
  });

  it('vouches for a tools/call, not for a notification, a response or an odd id', () => {
    expect(plainJsonRpcRequest(CALL)).toBe(true);
    expect(plainJsonRpcRequest({ jsonrpc: '2.0', method: 'notifications/initialized' })).toBe(false);
    expect(plainJsonRpcRequest({ jsonrpc: '2.0', id: 1, result: {} })).toBe(false);
    expect(plainJsonRpcRequest({ jsonrpc: '2.0', id: 1, error: { code: 1, message: 'x' } })).toBe(false);
    expect(plainJsonRpcRequest({ ...CALL, id: null })).toBe(false);
  });
});

/** What a transport made over fresh streams does with `chunks`: messages, errors, output, whether it closed. */
async function drive(
  make: (stdin: PassThrough, stdout: Writable) => Transport,
  chunks: Array<string | Buffer>,
  reply?: JSONRPCMessage,
) {
  const stdin = new PassThrough();
  const out: string[] = [];
  const stdout = new Writable({
    write(chunk: Buffer, _encoding, done) {
      out.push(chunk.toString('utf8'));
      done();
    },
  });
  const transport = make(stdin, stdout);
  const messages: unknown[] = [];
  const errors: string[] = [];
  let closed = false;
  transport.onmessage = (message) => {
    messages.push(message);
    if (reply) void transport.send(reply);
  };
  transport.onerror = (error) => errors.push(error.constructor.name);
  transport.onclose = () => (closed = true);
  await transport.start();
  for (const chunk of chunks) stdin.write(chunk);
  await new Promise((resolve) => setImmediate(resolve));
  return { messages, errors, out: out.join(''), closed };
}

const sdk = (stdin: PassThrough, stdout: Writable) => new StdioServerTransport(stdin, stdout);
const ours = (stdin: PassThrough, stdout: Writable) => new StdioWire(stdin, stdout);
const small = (stdin: PassThrough, stdout: Writable) => new StdioServerTransport(stdin, stdout, { maxBufferSize: 64 });
const oursSmall = (stdin: PassThrough, stdout: Writable) => new StdioWire(stdin, stdout, 64);

describe('StdioWire does with each line what the SDK transport does', () => {
  const cases: Array<[string, Array<string | Buffer>]> = [
    ['one message', [`${JSON.stringify(CALL)}\n`]],
    ['a message split across chunks, CRLF', [JSON.stringify(CALL).slice(0, 9), `${JSON.stringify(CALL).slice(9)}\r\n`]],
    ['two messages in one chunk', [`${JSON.stringify(CALL)}\n${JSON.stringify({ ...CALL, id: 8 })}\n`]],
    ['a line that is not JSON is skipped', ['{"jsonrpc":\n', `${JSON.stringify(CALL)}\n`]],
    ['JSON that is not JSON-RPC is an error', ['{"jsonrpc":"2.0","id":{}}\n[1,2]\n', `${JSON.stringify(CALL)}\n`]],
    ['a response is read by the SDK schema', ['{"jsonrpc":"2.0","id":3,"result":{"x":1}}\n']],
    ['a line without its newline waits', [JSON.stringify(CALL)]],
    ['multi-byte text split inside a character', [Buffer.from('{"jsonrpc":"2.0","method":"é'), Buffer.from('"}\n')]],
  ];
  for (const [name, chunks] of cases) {
    it(name, async () => {
      const reply: JSONRPCMessage = { jsonrpc: '2.0', id: 7, result: { content: [] } };
      expect(await drive(ours, chunks, reply)).toEqual(await drive(sdk, chunks, reply));
    });
  }

  it('over the buffer bound: an error, then closed', async () => {
    const chunks = [`${'x'.repeat(40)}`, `${'y'.repeat(40)}\n`];
    const theirs = await drive(small, chunks);
    expect(theirs.closed).toBe(true);
    expect(await drive(oursSmall, chunks)).toEqual(theirs);
  });

  it('refuses to send once closed, and closes when stdin ends', async () => {
    const stdin = new PassThrough();
    const wire = new StdioWire(stdin, new PassThrough());
    let closed = 0;
    wire.onclose = () => (closed += 1);
    await wire.start();
    stdin.end();
    await new Promise((resolve) => setImmediate(resolve));
    expect(closed).toBe(1);
    await expect(wire.send(CALL as JSONRPCMessage)).rejects.toThrow('closed');
  });
});
