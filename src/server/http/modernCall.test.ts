import fc from 'fast-check';
import * as sdk from '@modelcontextprotocol/server';
import { Server } from '@modelcontextprotocol/server';
import { describe, expect, it } from 'vitest';
import { ToolsCallServer } from '../mcp/toolsCallServer.js';
import { ModernCall, plainModernRequest, standardHeaders } from './modernCall.js';

const V = '2026-07-28';
const URL_ = 'http://127.0.0.1/mcp';

/** What the server's handlers saw, and the instance's state after the exchange. */
type Log = unknown[];

function makeFactory(log: Log, ours: boolean): () => Server {
  return () => {
    const server = ours
      ? new ToolsCallServer({ name: 't', version: '1' }, { capabilities: { tools: {} } })
      : new Server({ name: 't', version: '1' }, { capabilities: { tools: {} } });
    server.setRequestHandler('tools/list', () => ({ tools: [{ name: 'echo', inputSchema: { type: 'object' } }] }));
    server.setRequestHandler('tools/call', (request) => {
      const params = request.params as { name: string; arguments?: unknown };
      log.push(['call', params.name, server.getClientVersion(), server.getClientCapabilities()]);
      if (params.name === 'fail') throw new Error('boom');
      return { content: [{ type: 'text', text: JSON.stringify(params.arguments ?? null) }] };
    });
    const state = server as unknown as Record<string, unknown>;
    server.onclose = () =>
      log.push([
        'closed',
        state['_negotiatedProtocolVersion'],
        state['_supportedProtocolVersions'],
        (state['_requestHandlers'] as Map<string, unknown>).has('server/discover'),
        state['_boundFromTransport'],
      ]);
    return server;
  };
}

/** Status, sorted headers and the whole body (or what arrived before a short wait). */
async function answered(response: Response | undefined): Promise<unknown> {
  if (response === undefined) return { missing: 'no Response and nothing written' };
  const text = await Promise.race([
    response.text(),
    new Promise((resolve) => setTimeout(() => resolve('<pending>'), 200)),
  ]);
  return { status: response.status, headers: [...response.headers].sort(), text };
}

/**
 * What a JSON answer handed to the writer is on the wire: `writeJsonAnswer`
 * writes it as `sendWebResponse` writes the SDK's `Response.json`
 * (`webBridge.test.ts`), so it is read back as that `Response`.
 */
function writtenAnswer(status: number, text: string): Response {
  return new Response(text, { status, headers: { 'content-type': 'application/json' } });
}

/**
 * One request answered by the SDK's handler alone (`sdk`), or by ModernCall
 * in front of one, returning every answer as a `Response` (`ours`) or writing
 * JSON answers through a writer (`ours-writing`, as the endpoint does).
 */
async function exchange(
  via: 'sdk' | 'ours' | 'ours-writing',
  oursServer: boolean,
  headers: Record<string, string>,
  text: string,
) {
  const log: Log = [];
  const onerror = (error: Error) => log.push(['onerror', error.message]);
  const factory = makeFactory(log, oursServer);
  const handler = sdk.createMcpHandler(factory, { legacy: 'reject', onerror });
  const call = new ModernCall(sdk, factory, handler, onerror);
  const request = new Request(URL_, { method: 'POST', headers, body: text });
  const body: unknown = JSON.parse(text);
  let written: Response | undefined;
  const write = (status: number, answerText: string) => ((written = writtenAnswer(status, answerText)), true);
  let answer: unknown;
  let wrote = false;
  try {
    const response =
      via === 'sdk'
        ? await handler.fetch(request, { parsedBody: body })
        : await call.fetch(request, body, via === 'ours-writing' ? write : undefined);
    wrote = written !== undefined;
    // Written, or returned: never both, never neither.
    answer = wrote === (response === undefined) ? await answered(written ?? response) : { both: wrote };
  } catch (error) {
    answer = { threw: error instanceof Error ? error.message : String(error) };
  }
  await new Promise((resolve) => setTimeout(resolve, 0));
  await call.close();
  await handler.close();
  return { answer, log, wrote };
}

const maybe = <T>(arb: fc.Arbitrary<T>) => fc.option(arb, { nil: undefined });
const odd = fc.constantFrom<unknown>(null, 5, 'x', [], {}, true, 1.5);

const versionArb = fc.constantFrom<unknown>(V, V, V, '2025-11-25', '2027-01-01', ` ${V}`, 20260728, undefined);
const capabilitiesArb = fc.oneof(
  fc.constant<unknown>({}),
  fc.constant<unknown>({}),
  fc.constantFrom<unknown>(
    { roots: {} },
    { elicitation: {} },
    { sampling: 1 },
    { experimental: {} },
    { extensions: { a: {} } },
    { other: 1 },
    null,
    [],
    'caps',
    undefined,
  ),
);
const clientInfoArb = fc.constantFrom<unknown>(
  undefined,
  { name: 'c', version: '1' },
  { name: 'c', version: '1', title: 'T', description: 'd', websiteUrl: 'https://x' },
  { name: 'c', version: '1', icons: [] },
  { name: 'c', version: '1', icons: [{}] },
  { name: 'c', version: '1', title: 3 },
  { name: 1, version: '1' },
  { name: 'c' },
  'client',
  null,
);
const logLevelArb = fc.constantFrom<unknown>(undefined, undefined, 'debug', 'bogus');
const toolNameArb = fc.constantFrom<unknown>(
  'echo',
  'echo',
  'fail',
  'a.b/c-d_e',
  'Echo Tool',
  ' echo',
  '=?base64?ZWNobw==?=',
  7,
);
const methodArb = fc.constantFrom(
  'tools/call',
  'tools/call',
  'tools/call',
  'tools/list',
  'initialize',
  'subscriptions/listen',
  'server/discover',
  'ping',
  'constructor',
);
const idArb = fc.constantFrom<unknown>(1, 2, 'a', 0, -3, 1.5, null, 2 ** 60, undefined);

/** A valid `tools/call` as the SDK client sends it, field by field. */
const CANONICAL: Record<string, unknown> = {
  method: 'tools/call',
  id: 1,
  name: 'echo',
  version: V,
  capabilities: {},
  clientInfo: { name: 'c', version: '1' },
  logLevel: undefined,
  progressToken: undefined,
  extraMeta: false,
  extraTop: undefined,
  paramsOdd: undefined,
  metaOdd: undefined,
  jsonrpc: '2.0',
  protoInParams: 20,
};
const CANONICAL_KEYS = Object.keys(CANONICAL);

const bodyArb = fc
  .record({
    method: methodArb,
    id: idArb,
    name: toolNameArb,
    args: maybe(fc.dictionary(fc.constantFrom('a', 'b', '__proto__'), fc.oneof(fc.integer(), fc.string()))),
    version: versionArb,
    capabilities: capabilitiesArb,
    clientInfo: clientInfoArb,
    logLevel: logLevelArb,
    progressToken: fc.constantFrom<unknown>(undefined, undefined, 1, 't', 1.5),
    extraMeta: fc.boolean(),
    extraTop: fc.constantFrom<unknown>(undefined, undefined, undefined, 'result', 'error', 'extra'),
    paramsOdd: fc.option(odd, { freq: 8, nil: undefined }),
    metaOdd: fc.option(odd, { freq: 8, nil: undefined }),
    jsonrpc: fc.constantFrom<unknown>('2.0', '2.0', '2.0', '1.0'),
    protoInParams: fc.nat(20),
  })
  .chain((g) => fc.tuple(fc.constant(g), fc.nat(3), fc.nat(CANONICAL_KEYS.length)))
  .map(([generated, cleanness, mutated]) => {
    // Mostly a valid call with at most one field mutated, else everything generated.
    const g: typeof generated = { ...generated };
    if (cleanness > 0) {
      CANONICAL_KEYS.forEach((key, i) => {
        if (i !== mutated) (g as Record<string, unknown>)[key] = CANONICAL[key];
      });
    }
    const meta: Record<string, unknown> = {};
    if (g.version !== undefined) meta[sdk.PROTOCOL_VERSION_META_KEY] = g.version;
    if (g.capabilities !== undefined) meta[sdk.CLIENT_CAPABILITIES_META_KEY] = g.capabilities;
    if (g.clientInfo !== undefined) meta[sdk.CLIENT_INFO_META_KEY] = g.clientInfo;
    if (g.logLevel !== undefined) meta[sdk.LOG_LEVEL_META_KEY] = g.logLevel;
    if (g.progressToken !== undefined) meta['progressToken'] = g.progressToken;
    if (g.extraMeta) meta['x.example/other'] = { any: 1 };
    const params: Record<string, unknown> = { _meta: g.metaOdd ?? meta };
    if (g.method === 'tools/call') params['name'] = g.name;
    if (g.args !== undefined) params['arguments'] = g.args;
    const body: Record<string, unknown> = { jsonrpc: g.jsonrpc, method: g.method };
    if (g.id !== undefined) body['id'] = g.id;
    body['params'] = g.paramsOdd ?? params;
    if (g.extraTop !== undefined) body[g.extraTop as string] = {};
    let text = JSON.stringify(body);
    // `__proto__` written in the JSON text becomes an own key on parse.
    const withProto = (key: string, value: string) =>
      text.replace(new RegExp(`"${key}":\\{(\\}?)`), (_, end: string) => `"${key}":{"__proto__":${value}${end || ','}`);
    if (g.protoInParams === 0) text = withProto('params', '{"name":"echo"}');
    if (g.protoInParams === 1) text = withProto('_meta', '{}');
    return { text, name: g.name, method: g.method, version: g.version };
  });

const headersArb = bodyArb.chain((b) =>
  fc
    .record({
      version: fc.constantFrom<unknown>(
        'same',
        'same',
        'same',
        'same',
        'same',
        'absent',
        ' pad',
        '2025-11-25',
        '2026-07-29',
      ),
      method: fc.constantFrom('same', 'same', 'same', 'same', 'same', 'absent', 'other', ' pad'),
      name: fc.constantFrom('same', 'same', 'same', 'same', 'same', 'absent', 'other', ' pad', 'b64'),
      accept: fc.constantFrom('application/json, text/event-stream', 'application/json', 'text/event-stream', ''),
      contentType: fc.constantFrom(
        'application/json',
        'application/json',
        'application/json; charset=utf-8',
        'text/plain',
      ),
    })
    .map((h) => {
      const headers: Record<string, string> = { 'content-type': h.contentType };
      if (h.accept) headers['accept'] = h.accept;
      const version = typeof b.version === 'string' ? b.version : V;
      if (h.version === 'same') headers['mcp-protocol-version'] = version;
      else if (h.version === ' pad') headers['mcp-protocol-version'] = ` ${version}\t`;
      else if (h.version !== 'absent') headers['mcp-protocol-version'] = h.version as string;
      if (h.method === 'same') headers['mcp-method'] = b.method;
      else if (h.method === ' pad') headers['mcp-method'] = ` ${b.method} `;
      else if (h.method === 'other') headers['mcp-method'] = 'tools/list';
      const name = typeof b.name === 'string' ? b.name : 'echo';
      if (h.name === 'same') headers['mcp-name'] = name;
      else if (h.name === ' pad') headers['mcp-name'] = ` ${name} `;
      else if (h.name === 'other') headers['mcp-name'] = 'other';
      else if (h.name === 'b64') headers['mcp-name'] = `=?base64?${Buffer.from(name).toString('base64')}?=`;
      return { headers, body: b };
    }),
);

describe('ModernCall (issue 15): a vouched 2026-07-28 request served without the classifier', () => {
  it('SPEC §13 answers exactly as the SDK handler does: status, headers, body, handler view, instance state, onerror (3,000 requests)', async () => {
    let vouched = 0;
    let written = 0;
    await fc.assert(
      fc.asyncProperty(headersArb, fc.boolean(), async ({ headers, body }, oursServer) => {
        const request = new Request(URL_, { method: 'POST', headers, body: body.text });
        if (plainModernRequest(sdk, standardHeaders(request), JSON.parse(body.text))) vouched += 1;
        const { wrote: sdkWrote, ...theirs } = await exchange('sdk', oursServer, headers, body.text);
        const { wrote: returnedWrote, ...ours } = await exchange('ours', oursServer, headers, body.text);
        const { wrote, ...oursWriting } = await exchange('ours-writing', oursServer, headers, body.text);
        expect([sdkWrote, returnedWrote]).toEqual([false, false]);
        if (wrote) written += 1;
        expect(ours).toEqual(theirs);
        expect(oursWriting).toEqual(theirs);
      }),
      { numRuns: 3_000 },
    );
    expect(vouched).toBeGreaterThan(300);
    // Our instances' successful vouched calls: their results are written, not returned.
    expect(written).toBeGreaterThan(100);
  }, 360_000);

  it('SPEC §12 a vouched JSON result is written before its instance is torn down, and only then does it close', async () => {
    const log: Log = [];
    const factory = makeFactory(log, true);
    const handler = sdk.createMcpHandler(factory, { legacy: 'reject' });
    const call = new ModernCall(sdk, factory, handler, () => undefined);
    const text = JSON.stringify({
      jsonrpc: '2.0',
      id: 4,
      method: 'tools/call',
      params: {
        name: 'echo',
        arguments: { a: 1 },
        _meta: { [sdk.PROTOCOL_VERSION_META_KEY]: V, [sdk.CLIENT_CAPABILITIES_META_KEY]: {} },
      },
    });
    const headers = {
      'content-type': 'application/json',
      'mcp-protocol-version': V,
      'mcp-method': 'tools/call',
      'mcp-name': 'echo',
    };
    const request = new Request(URL_, { method: 'POST', headers, body: text });
    const write = (status: number, answer: string) => (log.push(['written', status, JSON.parse(answer)]), true);
    const response = await call.fetch(request, JSON.parse(text), write);
    await new Promise((resolve) => setTimeout(resolve, 0));
    expect(response).toBeUndefined();
    expect(log.map((entry) => (entry as unknown[])[0])).toEqual(['call', 'written', 'closed']);
    expect(log[1]).toMatchObject([
      'written',
      200,
      { jsonrpc: '2.0', id: 4, result: { content: [{ type: 'text', text: '{"a":1}' }], resultType: 'complete' } },
    ]);
    await call.close();
    await handler.close();
  });

  it('vouches only for what the SDK classifier routes modern at revision 2026-07-28', () => {
    fc.assert(
      fc.property(headersArb, ({ headers, body }) => {
        const request = new Request(URL_, { method: 'POST', headers, body: body.text });
        const std = standardHeaders(request);
        const parsed: unknown = JSON.parse(body.text);
        if (!plainModernRequest(sdk, std, parsed)) return;
        const outcome = sdk.classifyInboundRequest({
          httpMethod: 'POST',
          ...(std.protocolVersion !== undefined && { protocolVersionHeader: std.protocolVersion }),
          ...(std.method !== undefined && { mcpMethodHeader: std.method }),
          ...(std.name !== undefined && { mcpNameHeader: std.name }),
          body: parsed,
        });
        expect(outcome).toMatchObject({ kind: 'modern', messageKind: 'request', classification: { revision: V } });
      }),
      { numRuns: 3_000 },
    );
  });

  it('a factory instance still serving another request is a 500 with the request id, as the SDK answers', async () => {
    const results = [];
    for (const viaOurs of [false, true]) {
      const log: Log = [];
      const busy = new Server({ name: 't', version: '1' }, { capabilities: { tools: {} } });
      await busy.connect(new sdk.PerRequestHTTPServerTransport({ classification: { era: 'modern' } }));
      const onerror = (error: Error) => log.push(error.message);
      const handler = sdk.createMcpHandler(() => busy, { legacy: 'reject', onerror });
      const call = new ModernCall(sdk, () => busy, handler, onerror);
      const text = JSON.stringify({
        jsonrpc: '2.0',
        id: 9,
        method: 'tools/list',
        params: { _meta: { [sdk.PROTOCOL_VERSION_META_KEY]: V, [sdk.CLIENT_CAPABILITIES_META_KEY]: {} } },
      });
      const headers = { 'content-type': 'application/json', 'mcp-protocol-version': V, 'mcp-method': 'tools/list' };
      const request = new Request(URL_, { method: 'POST', headers, body: text });
      const response = viaOurs
        ? await call.fetch(request, JSON.parse(text))
        : await handler.fetch(request, { parsedBody: JSON.parse(text) });
      results.push({ answer: await answered(response), log });
    }
    expect(results[0]).toMatchObject({ answer: { status: 500 } });
    expect(results[1]).toEqual(results[0]);
  });
});
