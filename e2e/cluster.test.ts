/**
 * Cluster mode end to end (SPEC §14): a real `redis-server`, three real CLI
 * nodes (`serve --http … --cluster redis://… --token-file …`) behind one
 * loopback address (a TCP proxy standing in for the vendor's load balancer),
 * a vendor's terminal page with `<tradescript-bridge>` in real Chromium
 * sending its bearer token, and real MCP clients over Streamable HTTP, each
 * talking to one node with its principal's token.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  SESSIONS_URI,
  sessionContextUri,
  type CallReceipt,
  type ErrorObject,
  type SessionsDocument,
} from '../src/protocol/index.js';
import { startClusterProxy, type ClusterProxy } from '../src/testSupport/clusterProxy.js';
import { startTestRedis, type TestRedis } from '../src/testSupport/redisServer.js';
import { serveClusterPage, type ServedClusterPage } from './fixtures/cluster/servePage.js';
import { callTool, connectHttpClient, launchBrowser, startServer, type ServerHandle } from './harness/index.js';

const TOKENS = { alice: 'alice-e2e-token-0123456789abcdef', bob: 'bob-e2e-token-0123456789abcdef00' } as const;
type Principal = keyof typeof TOKENS;
const SESSION = { scope: 'session' } as const;

let redis: TestRedis;
let proxy: ClusterProxy;
let page: ServedClusterPage;
let dir: string;
let tokenFile: string;
let browser: Browser;
const nodes: ServerHandle[] = [];
const clients: Client[] = [];
const contexts: BrowserContext[] = [];

function nodePort(node: ServerHandle): number {
  return Number(new URL(node.ready.relayUrl).port);
}

async function startNode(): Promise<ServerHandle> {
  const node = await startServer([
    'serve',
    '--http',
    '127.0.0.1:0',
    '--cluster',
    redis.url,
    '--token-file',
    tokenFile,
    '--public-url',
    proxy.origin,
    '--allowed-origin',
    page.origin,
  ]);
  await waitForReady(node);
  return node;
}

async function waitForReady(node: ServerHandle): Promise<void> {
  const readyUrl = (node.ready as { readyUrl?: string }).readyUrl ?? '';
  const until = Date.now() + 15_000;
  for (;;) {
    const ok = await fetch(readyUrl).then(
      (r) => r.status === 200,
      () => false,
    );
    if (ok) return;
    if (Date.now() > until) throw new Error(`node ${readyUrl} never became ready`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

async function pairCode(node: ServerHandle, principal: Principal): Promise<string> {
  const url = (node.ready.mcpUrl ?? '').replace(/\/mcp$/, '/pair');
  const response = await fetch(url, {
    method: 'POST',
    headers: { Authorization: `Bearer ${TOKENS[principal]}`, 'Content-Type': 'application/json' },
    body: '{}',
  });
  expect(response.status).toBe(200);
  return ((await response.json()) as { code: string }).code;
}

/** Opens the vendor's terminal in its own browser profile, paired for `principal` through the proxy. */
async function openTerminal(principal: Principal, code: string, tab: string): Promise<{ page: Page; sessionId: string }> {
  const context = await browser.newContext();
  contexts.push(context);
  const target = await context.newPage();
  const relay = `${proxy.origin.replace(/^http/, 'ws')}/relay`;
  const query = `?relay=${encodeURIComponent(relay)}&token=${encodeURIComponent(TOKENS[principal])}&tab=${tab}`;
  await target.goto(`${page.url}${query}#pair=${code}`);
  await target.waitForFunction(() => window.clusterTest?.status()?.state === 'paired', undefined, { timeout: 20_000 });
  const sessionId = await target.evaluate(() => window.clusterTest.status()?.sessionId ?? '');
  return { page: target, sessionId };
}

async function client(node: ServerHandle, principal: Principal, headers: Record<string, string> = {}): Promise<Client> {
  const c = await connectHttpClient(node.ready.mcpUrl ?? '', { token: TOKENS[principal], headers });
  clients.push(c);
  return c;
}

async function sessionsOf(c: Client): Promise<SessionsDocument> {
  const result = await c.readResource({ uri: SESSIONS_URI });
  const first = result.contents[0];
  return JSON.parse(first && 'text' in first ? first.text : '{}') as SessionsDocument;
}

const errorOf = (envelope: { error?: ErrorObject | null }): string | null => envelope.error?.code ?? null;

beforeAll(async () => {
  redis = await startTestRedis();
  proxy = await startClusterProxy();
  page = await serveClusterPage();
  dir = mkdtempSync(join(tmpdir(), 'tradescript-cluster-e2e-'));
  tokenFile = join(dir, 'tokens.json');
  const tokens = Object.entries(TOKENS).map(([principal, token]) => ({ principal, token }));
  writeFileSync(tokenFile, JSON.stringify({ version: 1, tokens }), { mode: 0o600 });
  for (let i = 0; i < 3; i++) nodes.push(await startNode());
  proxy.targets = nodes.map(nodePort);
  browser = await launchBrowser();
});

afterAll(async () => {
  await Promise.all(clients.map((c) => c.close().catch(() => undefined)));
  await Promise.all(contexts.map((c) => c.close().catch(() => undefined)));
  await Promise.all(nodes.map((n) => n.close()));
  await browser?.close();
  await proxy?.close();
  await page?.close();
  await redis?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe('SPEC §14 one terminal, three nodes', () => {
  it('a browser paired through node A is driven by an MCP client talking to node C', async () => {
    const [a, , c] = nodes as [ServerHandle, ServerHandle, ServerHandle];
    proxy.targets = [nodePort(a)];
    const terminal = await openTerminal('alice', await pairCode(a, 'alice'), 'one');
    proxy.targets = nodes.map(nodePort);
    const alice = await client(c, 'alice');
    const listed = await sessionsOf(alice);
    expect(listed.sessions.map((s) => s.sessionId)).toContain(terminal.sessionId);
    const echo = await callTool<CallReceipt>(alice, 'tradescript_call', {
      sessionId: terminal.sessionId,
      target: SESSION,
      controlId: 'desk.echo',
      args: ['through C'],
    });
    expect(echo.isError).toBe(false);
    expect(echo.envelope.data?.result).toEqual({ value: 'through C', tab: 'one' });
    const booked = await callTool<CallReceipt>(alice, 'tradescript_call', {
      sessionId: terminal.sessionId,
      target: SESSION,
      controlId: 'desk.book',
      args: ['ticket-1'],
      context: { operationId: 'op-ticket-1' },
    });
    expect(booked.envelope.data?.result).toEqual({ ref: 'ticket-1', count: 1 });
    // A faithful retry returns the recorded receipt (the ledger is in the browser): nothing runs again.
    const again = await callTool<CallReceipt>(alice, 'tradescript_call', {
      sessionId: terminal.sessionId,
      target: SESSION,
      controlId: 'desk.book',
      args: ['ticket-1'],
      context: { operationId: 'op-ticket-1' },
    });
    expect(again.envelope.data?.result).toEqual({ ref: 'ticket-1', count: 1 });
    expect(await terminal.page.evaluate(() => window.clusterTest.dispatches())).toEqual({ 'ticket-1': 1 });
  });
});
