/**
 * The era routing of `/mcp` (`routesLegacy` in `mcpEndpoint.ts`): it must give
 * the SDK's `isLegacyRequest` answer for every request, and classify each
 * request once (the SDK's handler classifies what it is handed itself).
 */
import type { IncomingMessage } from 'node:http';
import fc from 'fast-check';
import * as sdk from '@modelcontextprotocol/server';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { modernMeta } from '../../testing/modernEnvelope.js';
import { postJson, serveMcpEndpoint } from '../testing/mcpHttpEndpoint.js';
import { claimsModernEnvelope, plainLegacyRequest, routesLegacy } from './mcpEndpoint.js';

// The endpoint's own calls of the SDK's classifiers are counted (the SDK's handler calls its internal copy).
vi.mock('@modelcontextprotocol/server', async (importOriginal) => {
  const original = await importOriginal<typeof sdk>();
  return {
    ...original,
    classifyInboundRequest: vi.fn(original.classifyInboundRequest),
    isLegacyRequest: vi.fn(original.isLegacyRequest),
  };
});

const CLAIM = 'io.modelcontextprotocol/protocolVersion';
const VALID_META = modernMeta();

/** Mostly `common`, sometimes one of `rare`. */
function mostly(common: fc.Arbitrary<unknown>, ...rare: unknown[]): fc.Arbitrary<unknown> {
  return fc.oneof({ weight: 6, arbitrary: common }, { weight: 1, arbitrary: fc.constantFrom(...rare) });
}
const OMIT = Symbol('omit');
const metaArb = mostly(
  fc.constantFrom(
    VALID_META,
    { [CLAIM]: '2026-07-28' },
    { ...VALID_META, [CLAIM]: '2025-11-25' },
    { ...VALID_META, [CLAIM]: 7 },
    { ...VALID_META, 'io.modelcontextprotocol/clientInfo': 'bad' },
  ),
  { progressToken: 1 },
  [VALID_META],
  null,
  OMIT,
);
const paramsArb = mostly(
  fc
    .tuple(fc.constantFrom({ name: 'tradescript_call' }, { protocolVersion: '2025-11-25' }, {}), metaArb)
    .map(([rest, meta]): unknown => (meta === OMIT ? rest : { ...rest, _meta: meta })),
  OMIT,
  null,
  [],
);
const messageArb = fc
  .record({
    jsonrpc: mostly(fc.constant('2.0'), '1.0', OMIT),
    id: mostly(fc.constantFrom(1, 'a'), null, OMIT),
    method: mostly(
      fc.constantFrom('tools/call', 'initialize', 'notifications/initialized', 'server/discover', 'ping'),
      7,
      OMIT,
    ),
    params: paramsArb,
    result: mostly(fc.constant(OMIT), {}),
    error: mostly(fc.constant(OMIT), { code: -32000, message: 'x' }),
  })
  .map((fields) => Object.fromEntries(Object.entries(fields).filter(([, value]) => value !== OMIT)));
const bodyArb = fc.oneof(
  { weight: 6, arbitrary: messageArb },
  { weight: 1, arbitrary: fc.array(messageArb, { maxLength: 3 }) },
  { weight: 1, arbitrary: fc.constantFrom(null, 0, 'text', true, {}) },
);
/** Plain requests as clients send them, with hostile params now and then. */
const plainCallArb = fc.record({
  jsonrpc: fc.constant('2.0'),
  id: fc.oneof(fc.integer(), fc.string({ maxLength: 3 })),
  method: fc.constantFrom('tools/call', 'tools/list', 'ping', 'initialize', 'resources/read'),
  params: fc.oneof(
    fc.constant({ name: 'tradescript_call', arguments: {} }),
    fc.record({ name: fc.string(), _meta: fc.oneof(fc.constant({ progressToken: 1 }), metaArb) }),
    fc.constant(JSON.parse('{"__proto__":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}}}')),
    fc.dictionary(fc.string({ maxLength: 4 }), fc.jsonValue({ maxDepth: 2 }), { maxKeys: 3 }),
  ),
});
const headerArb = (values: string[]) =>
  fc.oneof(fc.constant(undefined), fc.constantFrom(...values), fc.constant([values[0]!, values[1]!]));
const headersArb = fc.record({
  'mcp-protocol-version': headerArb([
    '2026-07-28',
    '2025-11-25',
    ' 2026-07-28 ',
    '2099-01-01',
    '2025-06-18',
    '2024-11-05',
    ' 2025-11-25',
    '2025-11-25\t',
    '',
    'x',
  ]),
  'mcp-method': headerArb(['tools/call', 'initialize', 'tools/list']),
  'mcp-name': headerArb(['tradescript_call', 'x']),
});
type TestHeaders = Record<string, string | readonly string[] | undefined>;

/** The Node request (repeated headers as Node hands them: an array, or joined) and the web one of the same request. */
function requests(method: string, headers: TestHeaders, joined: boolean): [IncomingMessage, Request] {
  const web = new Headers();
  const node: Record<string, string | string[]> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (value === undefined) continue;
    for (const one of [value].flat()) web.append(name, one);
    node[name] = typeof value === 'string' ? value : joined ? value.join(', ') : [...value];
  }
  const req = { method, headers: node } as unknown as IncomingMessage;
  return [req, new Request('http://127.0.0.1/mcp', { method, headers: web })];
}

describe('routesLegacy: the SDK’s isLegacyRequest, classified once', () => {
  it('agrees with isLegacyRequest on valid, mutated and hostile POST bodies and headers', async () => {
    await fc.assert(
      fc.asyncProperty(bodyArb, headersArb, fc.boolean(), async (body, headers, joined) => {
        const [req, web] = requests('POST', headers, joined);
        const expected = await sdk.isLegacyRequest(web, body);
        expect(routesLegacy(sdk, req, body), JSON.stringify({ body, headers })).toBe(expected);
      }),
      { numRuns: 3_000 },
    );
  });

  it('plainLegacyRequest vouches only for POSTs the SDK’s classifier routes legacy', () => {
    let vouched = 0;
    fc.assert(
      fc.property(fc.oneof(bodyArb, plainCallArb), headersArb, fc.boolean(), (body, headers, joined) => {
        const [req] = requests('POST', headers, joined);
        if (claimsModernEnvelope(body) || !plainLegacyRequest(req, body)) return;
        vouched += 1;
        const outcome = sdk.classifyInboundRequest({
          httpMethod: 'POST',
          ...(typeof req.headers['mcp-protocol-version'] === 'string' && {
            protocolVersionHeader: req.headers['mcp-protocol-version'],
          }),
          ...(typeof req.headers['mcp-method'] === 'string' && { mcpMethodHeader: req.headers['mcp-method'] }),
          ...(typeof req.headers['mcp-name'] === 'string' && { mcpNameHeader: req.headers['mcp-name'] }),
          body,
        });
        expect(outcome.kind, JSON.stringify({ body, headers })).toBe('legacy');
      }),
      { numRuns: 3_000 },
    );
    expect(vouched).toBeGreaterThan(200);
  });

  it('plainLegacyRequest vouches for a 2025-11-25 tools/call as the SDK client sends it', () => {
    const [req] = requests('POST', { 'mcp-protocol-version': '2025-11-25' }, true);
    const call = { jsonrpc: '2.0', id: 3, method: 'tools/call', params: { name: 'x', arguments: {} } };
    expect(plainLegacyRequest(req, call)).toBe(true);
    expect(plainLegacyRequest(req, { ...call, method: 'initialize' })).toBe(false);
    const [modern] = requests('POST', { 'mcp-protocol-version': '2026-07-28' }, true);
    expect(plainLegacyRequest(modern, call)).toBe(false);
  });

  it('agrees on GET and DELETE, and on a POST with no body', async () => {
    for (const method of ['GET', 'DELETE', 'get']) {
      const [req, web] = requests(method, { 'mcp-protocol-version': '2026-07-28' }, true);
      expect(routesLegacy(sdk, req, undefined)).toBe(await sdk.isLegacyRequest(web, undefined));
    }
    // A POST with no JSON body (the endpoint refuses one first): the SDK routes it legacy.
    const [req, web] = requests('POST', { 'mcp-protocol-version': '2026-07-28' }, true);
    expect(routesLegacy(sdk, req, undefined)).toBe(await sdk.isLegacyRequest(web, undefined));
  });

  it('a body with the envelope claim is never legacy, and is not classified by us', () => {
    let calls = 0;
    const classify: typeof sdk.classifyInboundRequest = (request) => (calls++, sdk.classifyInboundRequest(request));
    const [req] = requests('POST', { 'mcp-protocol-version': '2026-07-28' }, true);
    const body = { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'x', _meta: VALID_META } };
    expect(claimsModernEnvelope(body)).toBe(true);
    expect(routesLegacy({ classifyInboundRequest: classify }, req, body)).toBe(false);
    expect(calls).toBe(0);
    // Anything else we do not vouch for (here: a modern header without the claim) is classified by the SDK's classifier, once.
    const legacy = { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'x' } };
    expect(claimsModernEnvelope(legacy)).toBe(false);
    expect(routesLegacy({ classifyInboundRequest: classify }, req, legacy)).toBe(false);
    expect(calls).toBe(1);
  });
});

describe('/mcp classifies each request once', () => {
  const running: Array<() => Promise<void>> = [];
  afterEach(async () => {
    for (const stop of running.splice(0).reverse()) await stop();
  });

  async function serve(): Promise<string> {
    const served = await serveMcpEndpoint();
    running.push(served.stop);
    return served.url;
  }

  it('a 2026-07-28 tools/call is classified by the SDK’s handler alone; a 2025-11-25 request by us alone', async () => {
    const url = await serve();
    const classify = vi.mocked(sdk.classifyInboundRequest);
    const isLegacy = vi.mocked(sdk.isLegacyRequest);
    classify.mockClear();
    isLegacy.mockClear();
    const call = {
      jsonrpc: '2.0',
      id: 1,
      method: 'tools/call',
      params: {
        name: 'tradescript_get_context',
        arguments: { sessionId: 's-1', target: { scope: 'session' } },
        _meta: VALID_META,
      },
    };
    const modern = await postJson(
      url,
      { 'mcp-protocol-version': '2026-07-28', 'mcp-method': 'tools/call', 'mcp-name': 'tradescript_get_context' },
      call,
    );
    expect(modern.status).toBe(200);
    expect(JSON.parse(modern.text), modern.text).toMatchObject({ id: 1, result: expect.any(Object) });
    expect(classify).not.toHaveBeenCalled();
    const initialize = {
      jsonrpc: '2.0',
      id: 2,
      method: 'initialize',
      params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
    };
    const legacy = await postJson(url, {}, initialize);
    expect(legacy.status).toBe(200);
    expect(legacy.text).toContain('"protocolVersion":"2025-11-25"');
    expect(classify).toHaveBeenCalledTimes(1);
    expect(isLegacy).not.toHaveBeenCalled();
  });
});
