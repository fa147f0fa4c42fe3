import fc from 'fast-check';
import { serveStdio } from '@modelcontextprotocol/server/stdio';
import {
  isJSONRPCErrorResponse,
  isJSONRPCResultResponse,
  Server,
  type JSONRPCMessage,
  type Transport,
} from '@modelcontextprotocol/server';
import { PassThrough } from 'node:stream';
import { isDeepStrictEqual } from 'node:util';
import { describe, expect, it } from 'vitest';
import { plainJsonRpcResultResponse } from './jsonRpcShape.js';
import { lightenStdioChannel } from './stdioChannel.js';
import { StdioWire } from './stdioTransport.js';

/** `__proto__` as an own key, as JSON.parse makes it. */
const protoKeyed = (inner: string) => JSON.parse(`{"__proto__":${inner},"x":1}`) as unknown;

const id = fc.oneof(
  fc.string({ maxLength: 4 }),
  fc.integer(),
  fc.constantFrom<unknown>(undefined, null, 1.5, -0, 2 ** 53, 2 ** 60, NaN, Infinity, {}, '7'),
);
const odd = fc.oneof(
  fc.constantFrom<unknown>(undefined, null, 0, '', [], true),
  fc.jsonValue({ maxDepth: 2 }),
  fc.constant(protoKeyed('{"polluted":true}')),
  fc.constant(Object.create(null) as unknown),
  fc.constant(new Date(0) as unknown),
  fc.constant(new Map() as unknown),
);
const mostly = <T>(usual: fc.Arbitrary<T>) =>
  fc.oneof({ arbitrary: usual as fc.Arbitrary<unknown>, weight: 4 }, { arbitrary: odd, weight: 1 });

/** A tool result's shape, mutated and hostile: `_meta` valid or not, a prototype, an array. */
const result = fc.oneof(
  {
    arbitrary: fc.record(
      {
        content: fc.constant([{ type: 'text', text: '{"data":1}' }]),
        structuredContent: fc.jsonValue({ maxDepth: 2 }),
        isError: fc.boolean(),
        _meta: fc.oneof(
          fc.constant(null),
          fc.constant(undefined),
          fc.record({ progressToken: fc.integer() }, { requiredKeys: [] }),
          fc.record(
            { 'io.modelcontextprotocol/serverInfo': fc.oneof(fc.jsonValue({ maxDepth: 1 }), odd), other: odd },
            { requiredKeys: [] },
          ),
          odd,
          fc.jsonValue({ maxDepth: 1 }),
        ),
        extra: fc.jsonValue({ maxDepth: 1 }),
      },
      { requiredKeys: ['content'] },
    ),
    weight: 4,
  },
  { arbitrary: odd, weight: 1 },
  { arbitrary: fc.constant(Object.assign(Object.create(null) as object, { content: [] })), weight: 1 },
  { arbitrary: fc.constant(protoKeyed('{"_meta":{}}')), weight: 1 },
);

/** Near a result response: each part usual, wrong, absent or odd, sometimes an `error` or an extra key too. */
const nearResponse = fc
  .tuple(
    fc.record({ jsonrpc: mostly(fc.constant('2.0')), id: mostly(id), result }, { requiredKeys: ['id', 'result'] }),
    fc.oneof(
      { arbitrary: fc.constant({}), weight: 6 },
      {
        arbitrary: fc.constantFrom<Record<string, unknown>>(
          { error: undefined },
          { error: { code: -32600, message: 'x' } },
          { method: 'ping' },
          { other: 1 },
          { result: undefined },
        ),
        weight: 1,
      },
    ),
  )
  .chain(([m, extra]) => {
    const merged = { ...m, ...extra };
    return fc.oneof(
      { arbitrary: fc.constant<unknown>(merged), weight: 4 },
      { arbitrary: fc.constant<unknown>(JSON.parse(JSON.stringify(merged) ?? 'null')), weight: 2 },
      { arbitrary: fc.constant<unknown>(Object.assign(Object.create(null) as object, merged)), weight: 1 },
      { arbitrary: fc.constant<unknown>({ ...merged, [Symbol('s')]: 1 }), weight: 1 },
    );
  });

describe('issue 15 the stdio channel sorts without zod only what the SDK sorts alike', () => {
  it('vouches only for messages the SDK sorts as result responses', () => {
    let vouched = 0;
    fc.assert(
      fc.property(nearResponse, (message) => {
        if (!plainJsonRpcResultResponse(message)) return true;
        vouched += 1;
        return isJSONRPCResultResponse(message) && !isJSONRPCErrorResponse(message);
      }),
      { numRuns: 3000 },
    );
    expect(vouched).toBeGreaterThan(150);
  });

  it('vouches for the result responses our server sends', () => {
    const answer = { content: [{ type: 'text', text: '{}' }], structuredContent: {}, isError: false };
    expect(plainJsonRpcResultResponse({ jsonrpc: '2.0', id: 3, result: answer })).toBe(true);
    expect(plainJsonRpcResultResponse({ jsonrpc: '2.0', id: 'a', result: {} })).toBe(true);
    const serverInfo = { 'io.modelcontextprotocol/serverInfo': { name: 'tradescript', version: '1' } };
    expect(plainJsonRpcResultResponse({ jsonrpc: '2.0', id: 3, result: { ...answer, _meta: serverInfo } })).toBe(true);
    expect(plainJsonRpcResultResponse({ jsonrpc: '2.0', id: 3, result: { _meta: [] } })).toBe(false);
    expect(plainJsonRpcResultResponse({ jsonrpc: '2.0', id: 2 ** 60, result: {} })).toBe(false);
    expect(plainJsonRpcResultResponse({ jsonrpc: '2.0', id: 3, result: [] })).toBe(false);
    expect(plainJsonRpcResultResponse({ jsonrpc: '2.0', id: 3, result: {}, error: undefined })).toBe(false);
  });

  it('SPEC §11 a lightened channel counts, delivers, settles and writes exactly as the SDK channel', async () => {
    const Channel = await sdkChannelClass();
    /** One step: deliver an inbound message, send an outbound one, or close. */
    const inbound = fc.oneof(
      fc.record({ jsonrpc: mostly(fc.constant('2.0')), id: mostly(id), method: mostly(fc.constant('tools/call')) }),
      fc.record({
        jsonrpc: fc.constant('2.0'),
        method: fc.constant('notifications/cancelled'),
        params: fc.record({ requestId: id }),
      }),
    );
    const step = fc.oneof(
      { arbitrary: fc.record({ deliver: inbound }), weight: 4 },
      { arbitrary: fc.record({ send: nearResponse }), weight: 4 },
      {
        arbitrary: fc.record({
          send: fc.record({
            jsonrpc: fc.constant('2.0'),
            id: mostly(id),
            error: fc.constant({ code: 1, message: 'e' }),
          }),
        }),
        weight: 1,
      },
      { arbitrary: fc.constant({ close: true }), weight: 1 },
    );
    await fc.assert(
      fc.asyncProperty(fc.array(step, { maxLength: 12 }), fc.boolean(), async (steps, intercepting) => {
        const runs = await Promise.all(
          [false, true].map(async (lightened) => {
            const log: unknown[] = [];
            const wire = { send: async (m: unknown) => void log.push(['wire', m]) };
            // The modern era's intercept answers some messages itself; here: every odd numeric id.
            const intercept = intercepting
              ? (m: { id?: unknown }) => (typeof m.id === 'number' && m.id % 2 === 1 ? 'handled' : undefined)
              : undefined;
            const channel = new Channel(wire, () => log.push(['instance closed']), intercept);
            channel.onmessage = (m: unknown) => log.push(['delivered', m]);
            channel.onclose = () => log.push(['closed']);
            if (lightened) lightenStdioChannel(channel);
            for (const s of steps) {
              if ('deliver' in s) channel.deliver(s.deliver as JSONRPCMessage);
              else if ('send' in s) await channel.send(s.send as JSONRPCMessage);
              else await channel.close();
              log.push(['pending', [...channel._pendingRequests]]);
            }
            return log;
          }),
        );
        return isDeepStrictEqual(runs[0], runs[1]);
      }),
      { numRuns: 3000 },
    );
  });

  it('leaves a transport that is not the SDK channel as it is', () => {
    const transport = new StdioWire(new PassThrough(), new PassThrough());
    const { send } = transport;
    lightenStdioChannel(transport);
    expect(transport.send).toBe(send);
  });
});

interface ChannelLike extends Transport {
  _pendingRequests: Set<unknown>;
  deliver(message: JSONRPCMessage): void;
}
type ChannelClass = new (wire: unknown, onInstanceClose: () => void, intercept: unknown) => ChannelLike;

/** The SDK's private channel class, taken from the transport `serveStdio` connects a server to. */
async function sdkChannelClass(): Promise<ChannelClass> {
  let channel: Transport | undefined;
  const stdin = new PassThrough();
  const handle = serveStdio(
    () => {
      const server = new Server({ name: 'probe', version: '0' }, { capabilities: {} });
      const connect = server.connect.bind(server);
      server.connect = (transport) => ((channel = transport), connect(transport));
      return server;
    },
    { transport: new StdioWire(stdin, new PassThrough()) },
  );
  stdin.write('{"jsonrpc":"2.0","id":1,"method":"ping"}\n');
  for (let i = 0; i < 100 && !channel; i += 1) await new Promise((resolve) => setTimeout(resolve, 5));
  await handle.close();
  expect(channel?.constructor.name).toBe('StdioConnectionChannel');
  return (channel as Transport).constructor as ChannelClass;
}
