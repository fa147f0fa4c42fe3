import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { Client as V1Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as V1Transport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterEach, describe, expect, test } from 'vitest';
import { DEFAULT_LIMITS } from '../../protocol/index.js';
import { modernMeta } from '../../testing/modernEnvelope.js';
import type { IdleClock } from '../mcp/attachments/statelessAttachments.js';
import { defaultAnswer } from '../testing/testHub.js';
import { postJson, serveMcpEndpoint } from '../testing/mcpHttpEndpoint.js';
import { testConfig, waitFor } from '../testing/testHarness.js';

const IDLE_MS = 60_000;
const running: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const stop of running.splice(0).reverse()) await stop();
});

function manualClock(): IdleClock & { advance(ms: number): void; tick(): Promise<void> } {
  let now = 5_000_000;
  let run: (() => void) | null = null;
  return {
    now: () => now,
    setInterval: (fn) => ((run = fn), {}),
    clearInterval: () => void (run = null),
    advance: (ms) => void (now += ms),
    tick: async () => {
      run?.();
      await new Promise((resolve) => setTimeout(resolve, 20));
    },
  };
}

async function serve(clock?: IdleClock) {
  const config = testConfig({ logLevel: 'silent', limits: { ...DEFAULT_LIMITS, attachmentIdleMs: IDLE_MS } });
  const served = await serveMcpEndpoint({ config, ...(clock ? { clock } : {}) });
  running.push(served.stop);
  return served;
}

describe('/mcp with both protocol revisions (SPEC §2, §13)', () => {
  test('SPEC §13 one endpoint: a 2026-07-28 client is stateless, a 2025-11-25 client (SDK v1) keeps its session', async () => {
    const { url, endpoint, hub } = await serve();
    const modern = new Client({ name: 'modern', version: '1' }, { versionNegotiation: { mode: 'auto' } });
    await modern.connect(new StreamableHTTPClientTransport(new URL(url)));
    expect(modern.getProtocolEra()).toBe('modern');
    const legacy = new V1Client({ name: 'legacy', version: '1' });
    const legacyTransport = new V1Transport(new URL(url));
    await legacy.connect(legacyTransport);
    expect(legacyTransport.sessionId).toEqual(expect.any(String));
    expect(endpoint.size).toBe(1);
    for (const client of [modern, legacy]) {
      const result = await client.callTool({
        name: 'tradescript_get_context',
        arguments: { sessionId: 's-1', target: { scope: 'session' } },
      });
      expect(result.isError).toBe(false);
    }
    const [a, b] = hub.requests;
    expect(a?.attachmentId).not.toBe(b?.attachmentId);
    expect(await endpoint.attachmentCount()).toBe(2);
    await legacyTransport.terminateSession();
    await legacy.close();
    await modern.close();
    expect(endpoint.size).toBe(0);
  });

  test('SPEC §13 Mcp-Method and Mcp-Name are validated against the body on 2026-07-28 requests', async () => {
    const { url, hub } = await serve();
    const body = {
      jsonrpc: '2.0',
      id: 1,
      method: 'tools/call',
      params: {
        name: 'tradescript_get_context',
        arguments: { sessionId: 's-1', target: { scope: 'session' } },
        _meta: modernMeta(),
      },
    };
    const headers = {
      'mcp-protocol-version': '2026-07-28',
      'mcp-method': 'tools/call',
      'mcp-name': 'tradescript_get_context',
    };
    const good = await postJson(url, headers, body);
    expect(good.status).toBe(200);
    for (const wrong of [{ 'mcp-method': 'tools/list' }, { 'mcp-name': 'tradescript_call' }, { 'mcp-name': '' }]) {
      const refused = await postJson(url, { ...headers, ...wrong }, body);
      expect(refused.status, JSON.stringify(wrong)).toBe(400);
      expect(JSON.parse(refused.text)).toMatchObject({ error: { code: -32020 } });
    }
    expect(hub.requests).toHaveLength(1);
  });

  test('SPEC §5 §13 over a real socket, a 2026-07-28 client closing its request cancels it: the hub request is aborted', async () => {
    const { url, hub } = await serve();
    hub.responder = (request) =>
      new Promise((resolve) =>
        request.options.signal?.addEventListener('abort', () => resolve(defaultAnswer(request))),
      );
    const client = new Client(
      { name: 'cancels', version: '1' },
      { versionNegotiation: { mode: { pin: '2026-07-28' } } },
    );
    await client.connect(new StreamableHTTPClientTransport(new URL(url)));
    const controller = new AbortController();
    const pending = client.callTool(
      { name: 'tradescript_get_context', arguments: { sessionId: 's-1', target: { scope: 'session' } } },
      { signal: controller.signal },
    );
    await waitFor(() => hub.requests.length === 1, 'the hub request');
    controller.abort();
    await expect(pending).rejects.toThrow();
    await waitFor(() => hub.requests[0]?.options.signal?.aborted === true, 'the abort to reach the hub');
    await client.close();
  });

  test('SPEC §2 a 2025 session with no request for attachmentIdleMs and no open stream ends as a detach (fake clock)', async () => {
    const clock = manualClock();
    const { url, endpoint, hub } = await serve(clock);
    const client = new V1Client({ name: 'gone-without-delete', version: '1' });
    const transport = new V1Transport(new URL(url));
    await client.connect(transport);
    await client.callTool({
      name: 'tradescript_get_context',
      arguments: { sessionId: 's-1', target: { scope: 'session' } },
    });
    // The v1 client holds the standalone GET stream open: an open stream keeps the session.
    clock.advance(IDLE_MS * 2);
    await clock.tick();
    expect(endpoint.size).toBe(1);
    // The client goes away without DELETE (a process that exited): its stream closes.
    await client.close();
    await waitFor(() => endpoint.openStreams === 0, 'the stream to close');
    clock.advance(IDLE_MS - 1);
    await clock.tick();
    expect(endpoint.size).toBe(1);
    expect(hub.detached).toEqual([]);
    clock.advance(1);
    await clock.tick();
    expect(endpoint.size).toBe(0);
    await waitFor(() => hub.detached.length === 1, 'the detach');
    expect(hub.live.size).toBe(0);
  });
});
