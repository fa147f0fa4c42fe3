/**
 * ToolsCallServer checks a `tools/call` request once instead of twice: the same
 * lines on the stdio wire, through `serveStdio` on both revisions, get the
 * same bytes back from it as from the SDK's own `Server` with a 2-arg
 * handler, and its handler receives deep-equal params (issue 15).
 */
import fc from 'fast-check';
import { Server, type CallToolRequest, type CallToolResult, type ServerContext } from '@modelcontextprotocol/server';
import { serveStdio } from '@modelcontextprotocol/server/stdio';
import { PassThrough, Writable } from 'node:stream';
import { isDeepStrictEqual } from 'node:util';
import { describe, expect, it } from 'vitest';
import { modernMeta, toolsCallLine, type WireEra } from '../../testing/modernEnvelope.js';
import { StdioWire } from './stdioTransport.js';
import { ToolsCallServer } from './toolsCallServer.js';

type Era = WireEra;
type Kind = 'sdk' | 'ours';

const RESULT: CallToolResult = {
  content: [{ type: 'text', text: '{"data":1,"error":null,"meta":{}}' }],
  structuredContent: { data: 1, error: null, meta: {} },
  isError: false,
};

const ENVELOPE = modernMeta();

const INITIALIZE = JSON.stringify({
  jsonrpc: '2.0',
  id: 'init',
  method: 'initialize',
  params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'equivalence', version: '1' } },
});
const INITIALIZED = JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' });

/** One instance answering `tools/call` with {@link RESULT}, recording the params its handler was given by request id. */
function makeServer(kind: Kind, seen: Map<unknown, unknown>): Server {
  const options = { capabilities: { tools: {} } };
  const handler = (request: CallToolRequest, ctx: ServerContext): Promise<CallToolResult> => {
    seen.set(ctx.mcpReq.id, request.params);
    return Promise.resolve(RESULT);
  };
  if (kind === 'sdk') {
    const server = new Server({ name: 'equivalence', version: '1' }, options);
    server.setRequestHandler('tools/call', handler);
    return server;
  }
  const server = new ToolsCallServer({ name: 'equivalence', version: '1' }, options);
  server.serveOwnToolCalls(handler);
  return server;
}

/** What the wire answered to each request id, and what the handler saw. */
interface Answers {
  lines: Map<unknown, string>;
  seen: Map<unknown, unknown>;
}

/** Serves `requests` (one per line, each with its own id) on one connection of `era`; resolves once each is answered. */
async function serve(kind: Kind, era: Era, requests: Array<{ id: string; line: string }>): Promise<Answers> {
  const stdin = new PassThrough();
  const lines = new Map<unknown, string>();
  let partial = '';
  let wake = () => undefined as void;
  const stdout = new Writable({
    write(chunk: Buffer, _encoding, done) {
      const parts = (partial + chunk.toString()).split('\n');
      partial = parts.pop() ?? '';
      for (const part of parts) lines.set((JSON.parse(part) as { id?: unknown }).id, part);
      wake();
      done();
    },
  });
  const seen = new Map<unknown, unknown>();
  const handle = serveStdio(() => makeServer(kind, seen), { transport: new StdioWire(stdin, stdout) });
  const opening = era === '2025-11-25' ? [INITIALIZE, INITIALIZED] : [];
  // A ping after the requests: once it is answered, so is every request that gets an answer (some lines are not JSON-RPC requests at all).
  const fence = JSON.stringify({
    jsonrpc: '2.0',
    id: 'fence',
    method: 'ping',
    ...(era === '2026-07-28' ? { params: { _meta: ENVELOPE } } : {}),
  });
  stdin.write([...opening, ...requests.map((r) => r.line), fence].join('\n') + '\n');
  for (let i = 0; i < 200 && !lines.has('fence'); i += 1) {
    await new Promise<void>((resolve) => {
      wake = resolve;
      setTimeout(resolve, 10);
    });
  }
  await new Promise((resolve) => setTimeout(resolve, 5));
  await handle.close();
  expect(lines.has('fence'), 'the fence was answered').toBe(true);
  lines.delete('init');
  lines.delete('fence');
  return { lines, seen };
}

/** `__proto__` as an own key, as JSON.parse makes it from a line. */
const protoKeyed = (inner: string) => JSON.parse(`{"__proto__":${inner},"x":1}`) as unknown;

const odd = fc.oneof(
  fc.constant(undefined),
  fc.constant(null),
  fc.integer(),
  fc.string(),
  fc.array(fc.jsonValue(), { maxLength: 3 }),
  fc.jsonValue(),
  fc.constant(protoKeyed('{"polluted":true}')),
);
const mostly = <T>(usual: fc.Arbitrary<T>) =>
  fc.oneof({ arbitrary: usual as fc.Arbitrary<unknown>, weight: 3 }, { arbitrary: odd, weight: 1 });

/** tools/call params: valid, mutated (wrong types, dropped fields, unknown keys) and hostile (prototype keys). */
const params = fc.record(
  {
    name: mostly(fc.constantFrom('tradescript_call', 'tradescript_get_context', 'x')),
    arguments: mostly(
      fc.oneof(
        fc.dictionary(fc.string({ maxLength: 8 }), fc.jsonValue({ maxDepth: 3 }), { maxKeys: 4 }),
        fc.constant(protoKeyed('{"sessionId":"s-1"}')),
        fc.constant({ sessionId: 's-1', nested: protoKeyed('1') }),
      ),
    ),
    _meta: mostly(fc.record({ progressToken: mostly(fc.oneof(fc.integer(), fc.string())) }, { requiredKeys: [] })),
    task: odd,
    unknownKey: odd,
  },
  { requiredKeys: [] },
);

const request = fc.record({ params: fc.oneof({ arbitrary: params, weight: 5 }, { arbitrary: odd, weight: 1 }) });

describe('issue 15 tools/call is checked once, with the SDK check', () => {
  for (const era of ['2025-11-25', '2026-07-28'] as const) {
    it(`SPEC §3 ${era}: valid, mutated and hostile tools/call requests get the same bytes and the handler the same params as from the SDK's Server`, async () => {
      await fc.assert(
        fc.asyncProperty(fc.array(request, { minLength: 1, maxLength: 12 }), async (generated) => {
          const requests = generated.map((g, i) => ({ id: `q${i}`, line: toolsCallLine(`q${i}`, era, g.params) }));
          const [sdk, ours] = [await serve('sdk', era, requests), await serve('ours', era, requests)];
          expect([...ours.lines.keys()].sort()).toEqual([...sdk.lines.keys()].sort());
          for (const { id } of requests) {
            expect(ours.lines.get(id), id).toBe(sdk.lines.get(id));
            expect(isDeepStrictEqual(ours.seen.get(id), sdk.seen.get(id)), `${id} params`).toBe(true);
          }
          expect([...ours.seen.keys()].sort()).toEqual([...sdk.seen.keys()].sort());
        }),
        { numRuns: 60 },
      );
    });
  }

  it('SPEC §3 a malformed request gets InvalidParams naming the field, as from the SDK', async () => {
    const requests = [{ id: 'bad', line: toolsCallLine('bad', '2025-11-25', { name: 7 }) }];
    const { lines, seen } = await serve('ours', '2025-11-25', requests);
    const answer = JSON.parse(lines.get('bad') ?? '{}') as { error?: { code: number; message: string } };
    expect(answer.error?.code).toBe(-32602);
    expect(answer.error?.message).toMatch(/^Invalid tools\/call request: .*name/s);
    expect(seen.size).toBe(0);
  });
});
