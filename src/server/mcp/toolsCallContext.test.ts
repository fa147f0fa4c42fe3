/**
 * ToolsCallServer builds each request's context as the SDK's `Server` does
 * (same keys, same order, same values, the same `log` behaviour), but from a
 * request part whose hidden class V8 shares, so a request's context does not
 * outlive it by a scavenge (issue 15; bench/serverGc.mjs).
 */
import fc from 'fast-check';
import { Server, type BaseContext, type MessageExtraInfo, type ServerContext } from '@modelcontextprotocol/server';
import { setFlagsFromString } from 'node:v8';
import { describe, expect, it } from 'vitest';
import { ToolsCallServer } from './toolsCallServer.js';

type Build = (ctx: BaseContext, info?: MessageExtraInfo) => ServerContext;

const options = { capabilities: { tools: {}, logging: {} } };
const ours = new ToolsCallServer({ name: 'context', version: '1' }, options);
const sdk = new Server({ name: 'context', version: '1' }, options);
const buildOurs = (ours as unknown as { buildContext: Build }).buildContext.bind(ours);
const buildSdk = (sdk as unknown as { buildContext: Build }).buildContext.bind(sdk);

/** What a context is made of: its keys in order, nested objects' too, functions by kind only. */
function outline(value: unknown): unknown {
  if (typeof value === 'function') return 'function';
  if (typeof value !== 'object' || value === null || value instanceof AbortSignal) return value;
  return Object.keys(value).map((key) => [key, outline((value as Record<string, unknown>)[key])]);
}

/** The request part `Protocol._onrequest` (SDK 2.4) builds, its optional keys present or not. */
const baseContext = fc
  .record(
    {
      id: fc.oneof(fc.integer(), fc.string()),
      meta: fc.option(fc.dictionary(fc.string(), fc.jsonValue({ maxDepth: 1 }), { maxKeys: 3 }), { nil: undefined }),
      envelope: fc.option(fc.dictionary(fc.string(), fc.string(), { maxKeys: 2 })),
      inputResponses: fc.option(fc.dictionary(fc.string(), fc.jsonValue({ maxDepth: 1 }), { maxKeys: 2 })),
      dropped: fc.array(fc.string(), { maxLength: 2 }),
      sessionId: fc.option(fc.string(), { nil: undefined }),
      authInfo: fc.option(fc.record({ token: fc.string(), clientId: fc.string(), scopes: fc.array(fc.string()) })),
    },
    { requiredKeys: ['id', 'dropped'] },
  )
  .map(({ id, meta, envelope, inputResponses, dropped, sessionId, authInfo }) => {
    const sent: unknown[] = [];
    const mcpReq = {
      id,
      method: 'tools/call',
      _meta: meta,
      ...(envelope != null && { envelope }),
      ...(inputResponses != null && { inputResponses }),
      ...(inputResponses != null && dropped.length > 0 && { droppedInputResponseKeys: dropped }),
      requestState: () => undefined,
      signal: new AbortController().signal,
      send: () => Promise.resolve({}),
      notify: (notification: unknown) => (sent.push(notification), Promise.resolve()),
    };
    return { ctx: { sessionId, mcpReq, http: authInfo ? { authInfo } : undefined } as unknown as BaseContext, sent };
  });

/** A request part as `_onrequest` builds it without optional keys, and the notifications sent through it. */
function plainContext(id: number): { ctx: BaseContext; sent: unknown[] } {
  const sent: unknown[] = [];
  const mcpReq = {
    id,
    method: 'tools/call',
    _meta: undefined,
    requestState: () => undefined,
    signal: new AbortController().signal,
    send: () => Promise.resolve({}),
    notify: (notification: unknown) => (sent.push(notification), Promise.resolve()),
  };
  return { ctx: { sessionId: undefined, mcpReq, http: undefined } as unknown as BaseContext, sent };
}

const transportInfo = fc.option(
  fc.constantFrom<MessageExtraInfo>({ closeSSEStream: () => undefined }, {
    request: new Request('http://localhost/mcp'),
  } as MessageExtraInfo),
  { nil: undefined },
);

describe('issue 15 ToolsCallServer.buildContext', () => {
  it("gives every request's context part one hidden class (a spread plus new keys gave each its own)", () => {
    setFlagsFromString('--allow-natives-syntax');
    // V8's own test of hidden classes, compiled after the flag is set.
    const sameHiddenClass = new Function('a', 'b', 'return %HaveSameMap(a, b);') as (a: unknown, b: unknown) => boolean;
    // First in this file, as in a server: the SDK's spread has seen one shape only (varied shapes take
    // V8's slow path, which shares hidden classes), and takes its fast path after many requests.
    const contexts = Array.from({ length: 3000 }, (_, i) => plainContext(i).ctx);
    const last = (build: Build) => contexts.map((ctx) => build(ctx).mcpReq).slice(-2);
    const [one, two] = contexts.slice(-2).map((ctx) => ctx.mcpReq);
    const [sdkOne, sdkTwo] = last(buildSdk);
    const [oursOne, oursTwo] = last(buildOurs);
    // The request parts share a hidden class, and so do ours built from them. The SDK's own do not on
    // Node 20's V8 (20.20.2 here); that is the runtime's behaviour, not ours, so it is printed, not asserted:
    // a Node whose V8 shares them there too must not fail this test.
    expect(sameHiddenClass(one, two)).toBe(true);
    expect(sameHiddenClass(oursOne, oursTwo)).toBe(true);
    console.info(
      `SDK buildContext request parts share a hidden class on ${process.version}: ${sameHiddenClass(sdkOne, sdkTwo)}`,
    );
  });
  it('builds the context Server.buildContext builds: same keys in the same order, same values', () => {
    fc.assert(
      fc.property(baseContext, transportInfo, ({ ctx }, info) => {
        const mine = buildOurs(ctx, info);
        const theirs = buildSdk(ctx, info);
        expect(outline(mine)).toEqual(outline(theirs));
        expect(mine.mcpReq.signal).toBe(ctx.mcpReq.signal);
        expect(mine.mcpReq.notify).toBe(ctx.mcpReq.notify);
      }),
      { numRuns: 300 },
    );
  });

  it('its log sends what the SDK context sends (notifications/message through notify)', async () => {
    const a = plainContext(1);
    const b = plainContext(1);
    await buildOurs(a.ctx).mcpReq.log('warning', { n: 1 }, 'tool');
    await buildSdk(b.ctx).mcpReq.log('warning', { n: 1 }, 'tool');
    expect(a.sent).toEqual([
      { method: 'notifications/message', params: { level: 'warning', data: { n: 1 }, logger: 'tool' } },
    ]);
    expect(a.sent).toEqual(b.sent);
  });
});
