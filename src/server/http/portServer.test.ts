import { request as httpRequest } from 'node:http';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { afterEach, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { CLOSE_CODES } from '../../protocol/index.js';
import { Hub, type HubTiming } from '../hub/hub.js';
import { createLogger } from '../log.js';
import { fixedKeySource } from '../mcp/attachments/attachmentKey.js';
import { createHttpFront } from '../mcp/httpFront.js';
import { testConfig } from '../testing/testHarness.js';
import { Pairing } from '../pairing/pairing.js';
import { loopbackOrigins } from '../relay/originPolicy.js';
import { startPortServer, type PortServer } from './portServer.js';

const DEMO_ORIGIN = 'http://127.0.0.1:7392';
const ADMIN_TOKEN = 'admin-token-0123456789abcdef';
const running: Array<{ front: PortServer; hub: Hub }> = [];

afterEach(async () => {
  for (const { front, hub } of running.splice(0)) {
    hub.close();
    await front.close();
  }
});

async function start(options: { bearerToken?: string; timing?: Partial<HubTiming>; stdio?: boolean } = {}) {
  const pairing = new Pairing({ home: mkdtempSync(join(tmpdir(), 'tsmcp-http-')) });
  const logger = createLogger('silent');
  const hub = new Hub({ auth: pairing, logger, serverVersion: '0.0.0-test', timing: options.timing });
  const front = await startPortServer(
    { host: '127.0.0.1', port: 0 },
    {
      hub,
      logger,
      bearerToken: options.bearerToken ?? null,
      mcp: options.stdio
        ? null
        : () =>
            Promise.resolve(
              createHttpFront({
                hub,
                config: testConfig({ logLevel: 'silent' }),
                logger,
                serverVersion: '0.0.0-test',
                keySource: fixedKeySource(),
              }),
            ),
      relayOrigins: () => loopbackOrigins(7392),
      admin: () => ({
        hub,
        pairing,
        logger,
        token: ADMIN_TOKEN,
        version: '0.0.0-test',
        defaultGrant: 'write',
        urls: () => ({ relayUrl: front.relayUrl, demoUrl: 'http://127.0.0.1:7392/' }),
      }),
    },
  );
  running.push({ front, hub });
  return { front, hub, pairing, port: front.bound.port };
}

/** A raw request, so Host and Origin can be anything. */
function raw(
  port: number,
  path: string,
  headers: Record<string, string>,
  method = 'POST',
  body = '',
): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      { host: '127.0.0.1', port, path, method, headers: { 'content-type': 'application/json', ...headers } },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8') }));
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

const initialize = JSON.stringify({
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 't', version: '1' } },
});
const mcpHeaders = (port: number) => ({ host: `127.0.0.1:${port}`, accept: 'application/json, text/event-stream' });

function upgrade(port: number, headers: Record<string, string> = {}): Promise<{ status: number } | WebSocket> {
  return new Promise((resolve) => {
    const ws = new WebSocket(`ws://127.0.0.1:${port}/relay`, { headers: { origin: DEMO_ORIGIN, ...headers } });
    ws.once('open', () => resolve(ws));
    ws.once('unexpected-response', (_req, res) => resolve({ status: res.statusCode ?? 0 }));
  });
}

async function openSocket(port: number): Promise<WebSocket> {
  const ws = await upgrade(port);
  if (!(ws instanceof WebSocket)) throw new Error(`upgrade refused: ${ws.status}`);
  return ws;
}

const closeCode = (ws: WebSocket) => new Promise<number>((resolve) => ws.once('close', (code) => resolve(code)));

describe('/mcp (SPEC §9)', () => {
  it('serves a real MCP client over Streamable HTTP and cleans up on close', async () => {
    const { front } = await start();
    const client = new Client({ name: 'test', version: '1' });
    const transport = new StreamableHTTPClientTransport(new URL(front.mcpUrl));
    await client.connect(transport);
    expect(front.mcpEndpoint?.size).toBe(1);
    expect((await client.listTools()).tools.map((t) => t.name)).toContain('tradescript_call');
    await transport.terminateSession();
    await client.close();
    expect(front.mcpEndpoint?.size).toBe(0);
  });

  it('refuses a foreign Origin with 403', async () => {
    const { port } = await start();
    const res = await raw(port, '/mcp', { ...mcpHeaders(port), origin: 'http://evil.example' }, 'POST', initialize);
    expect(res.status).toBe(403);
  });

  it('accepts its own origin', async () => {
    const { port } = await start();
    const res = await raw(
      port,
      '/mcp',
      { ...mcpHeaders(port), origin: `http://127.0.0.1:${port}` },
      'POST',
      initialize,
    );
    expect(res.status).toBe(200);
  });

  it('refuses a foreign Host with 403 (DNS rebinding)', async () => {
    const { port } = await start();
    const res = await raw(port, '/mcp', { ...mcpHeaders(port), host: `rebind.example:${port}` }, 'POST', initialize);
    expect(res.status).toBe(403);
    const wrongPort = await raw(
      port,
      '/mcp',
      { ...mcpHeaders(port), host: `127.0.0.1:${port + 1}` },
      'POST',
      initialize,
    );
    expect(wrongPort.status).toBe(403);
  });

  it('requires the bearer token when --token-file is given', async () => {
    const { port } = await start({ bearerToken: 'bearer-token-0123456789' });
    expect((await raw(port, '/mcp', mcpHeaders(port), 'POST', initialize)).status).toBe(401);
    const wrong = await raw(port, '/mcp', { ...mcpHeaders(port), authorization: 'Bearer nope' }, 'POST', initialize);
    expect(wrong.status).toBe(401);
    const right = await raw(
      port,
      '/mcp',
      { ...mcpHeaders(port), authorization: 'Bearer bearer-token-0123456789' },
      'POST',
      initialize,
    );
    expect(right.status).toBe(200);
  });

  it('answers 413 for a body over 4 MB', async () => {
    const { port } = await start();
    const res = await raw(port, '/mcp', mcpHeaders(port), 'POST', 'x'.repeat(4 * 1024 * 1024 + 1));
    expect(res.status).toBe(413);
  });

  it('serves no HTML: anything else is a JSON 404', async () => {
    const { port } = await start();
    const res = await raw(port, '/', { host: `127.0.0.1:${port}` }, 'GET');
    expect(res.status).toBe(404);
    expect(res.body).not.toMatch(/<html/i);
  });

  it('has no /mcp when MCP runs over stdio', async () => {
    const { port } = await start({ stdio: true });
    expect((await raw(port, '/mcp', mcpHeaders(port), 'POST', initialize)).status).toBe(404);
  });
});

describe('/relay upgrade (SPEC §9)', () => {
  it('refuses a foreign Origin (closed with originNotAllowed at once) and a missing one (403)', async () => {
    const { port } = await start();
    const foreign = await upgrade(port, { origin: 'http://evil.example' });
    expect(foreign).toBeInstanceOf(WebSocket);
    expect(await closeCode(foreign as WebSocket)).toBe(CLOSE_CODES.originNotAllowed);
    const ws = await new Promise<{ status: number } | WebSocket>((resolve) => {
      const s = new WebSocket(`ws://127.0.0.1:${port}/relay`);
      s.once('open', () => resolve(s));
      s.once('unexpected-response', (_q, res) => resolve({ status: res.statusCode ?? 0 }));
    });
    expect(ws).toEqual({ status: 403 });
  });

  it('refuses a foreign Host with 403 before upgrading', async () => {
    const { port } = await start();
    expect(await upgrade(port, { host: `rebind.example:${port}` })).toEqual({ status: 403 });
  });

  it('requires the bearer token, as a header or a subprotocol, when configured', async () => {
    const { port } = await start({ bearerToken: 'bearer-token-0123456789' });
    expect(await upgrade(port)).toEqual({ status: 403 });
    const withHeader = await upgrade(port, { authorization: 'Bearer bearer-token-0123456789' });
    expect(withHeader).toBeInstanceOf(WebSocket);
    (withHeader as WebSocket).close();
    const viaProtocol = await new Promise<WebSocket>((resolve, reject) => {
      const s = new WebSocket(
        `ws://127.0.0.1:${port}/relay`,
        ['tradescript.relay.v1', 'bearer.bearer-token-0123456789'],
        { headers: { origin: DEMO_ORIGIN } },
      );
      s.once('open', () => resolve(s));
      s.once('unexpected-response', () => reject(new Error('refused')));
    });
    expect(viaProtocol.protocol).toBe('tradescript.relay.v1');
    viaProtocol.close();
  });

  it('pairs a tab with a code from the admin API, once', async () => {
    const { port } = await start();
    const pair = await raw(
      port,
      '/admin/pair',
      { host: `127.0.0.1:${port}`, authorization: `Bearer ${ADMIN_TOKEN}` },
      'POST',
      '{"grant":"trade"}',
    );
    const { code, pairUrl } = JSON.parse(pair.body) as { code: string; pairUrl: string };
    expect(pairUrl).toBe(`http://127.0.0.1:7392/#pair=${code}`);
    const ws = await openSocket(port);
    const welcome = new Promise<Record<string, unknown>>((resolve) =>
      ws.once('message', (d) => resolve(JSON.parse(String(d)) as Record<string, unknown>)),
    );
    ws.send(JSON.stringify({ t: 'hello', v: 1, agent: { kind: 'page', version: 't' }, auth: { kind: 'pair', code } }));
    expect(await welcome).toMatchObject({
      t: 'welcome',
      grant: 'trade',
      credential: { hostId: expect.any(String), secret: expect.any(String) },
    });
    ws.close();
    const again = await openSocket(port);
    const closed = closeCode(again);
    again.send(
      JSON.stringify({ t: 'hello', v: 1, agent: { kind: 'page', version: 't' }, auth: { kind: 'pair', code } }),
    );
    expect(await closed).toBe(CLOSE_CODES.unauthorized);
  });

  it('closes 4400 on a malformed frame', async () => {
    const { port } = await start();
    const ws = await openSocket(port);
    const closed = closeCode(ws);
    ws.send('{not json');
    expect(await closed).toBe(CLOSE_CODES.malformed);
  });

  it('closes 4408 when no hello arrives within the attach timeout', async () => {
    const { port } = await start({ timing: { attachTimeoutMs: 30 } });
    expect(await closeCode(await openSocket(port))).toBe(CLOSE_CODES.attachTimeout);
  });

  it('closes 4420 when the socket stays silent past the heartbeat timeout', async () => {
    const { port } = await start({ timing: { heartbeatTimeoutMs: 30, attachTimeoutMs: 60_000 } });
    expect(await closeCode(await openSocket(port))).toBe(CLOSE_CODES.heartbeatTimeout);
  });
});

describe('/admin (SPEC §11)', () => {
  it('refuses callers without the admin token, and any browser Origin', async () => {
    const { port } = await start();
    const host = `127.0.0.1:${port}`;
    expect((await raw(port, '/admin/status', { host }, 'GET')).status).toBe(403);
    const withOrigin = await raw(
      port,
      '/admin/status',
      { host, authorization: `Bearer ${ADMIN_TOKEN}`, origin: `http://${host}` },
      'GET',
    );
    expect(withOrigin.status).toBe(403);
    const ok = await raw(port, '/admin/status', { host, authorization: `Bearer ${ADMIN_TOKEN}` }, 'GET');
    expect(ok.status).toBe(200);
    expect(JSON.parse(ok.body)).toMatchObject({ hub: { sessions: 0 }, sessions: [], hosts: [] });
  });

  it('revokes the host of a session: its socket closes 4403 and its credential stops working', async () => {
    const { port, pairing } = await start();
    const host = `127.0.0.1:${port}`;
    const admin = { host, authorization: `Bearer ${ADMIN_TOKEN}` };
    const { code } = pairing.issueCode('write');
    const ws = await openSocket(port);
    const frames: Array<Record<string, unknown>> = [];
    const opened = new Promise<string>((resolve) =>
      ws.on('message', (d) => {
        const f = JSON.parse(String(d)) as Record<string, unknown>;
        frames.push(f);
        if (f.t === 'session.opened') resolve(f.sessionId as string);
      }),
    );
    ws.send(JSON.stringify({ t: 'hello', v: 1, agent: { kind: 'page', version: 't' }, auth: { kind: 'pair', code } }));
    ws.send(
      JSON.stringify({ t: 'session.open', ref: 'a', info: { title: 'T' }, catalog: { controls: [], channels: [] } }),
    );
    const sessionId = await opened;
    const closed = closeCode(ws);
    const res = await raw(port, '/admin/revoke', admin, 'POST', JSON.stringify({ sessionId }));
    expect(JSON.parse(res.body)).toMatchObject({ credentialRevoked: true, sessionsClosed: 1 });
    expect(await closed).toBe(CLOSE_CODES.forbidden);
    expect(pairing.store.list()).toEqual([]);
  });
});
