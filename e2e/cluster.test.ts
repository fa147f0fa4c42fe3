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
import type { Client } from '@modelcontextprotocol/client';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  SESSIONS_URI,
  sessionContextUri,
  type CallReceipt,
  type ErrorObject,
  type SessionsDocument,
} from '../src/protocol/index.js';
import { startClusterProxy, type ClusterProxy } from '../src/testing/clusterProxy.js';
import { connectModernClient } from '../src/testing/modernClient.js';
import { nodeRotation, type NodeRotation } from '../src/testing/nodeRotation.js';
import { startTestRedis, type TestRedis } from '../src/testing/redisServer.js';
import { serveClusterPage, type ServedClusterPage } from './fixtures/cluster/servePage.js';
import { extensionIdOf } from './fixtures/extension/extensionId.js';
import { PopupDriver } from './fixtures/extension/popupDriver.js';
import {
  callTool,
  connectHttpClient,
  launchBrowser,
  launchPersistentBrowser,
  repoRoot,
  startServer,
  type ServerHandle,
} from './harness/index.js';

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
async function openTerminal(
  principal: Principal,
  code: string,
  tab: string,
): Promise<{ page: Page; sessionId: string }> {
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

/** A 2026-07-28 client of `principal` whose requests go to the nodes in turn (no sticky routing). */
async function statelessClient(principal: Principal): Promise<{ client: Client; rotation: NodeRotation }> {
  const rotation = nodeRotation(nodes.map((n) => n.ready.mcpUrl ?? ''));
  const client = await connectModernClient(TOKENS[principal], rotation, `${principal}-stateless`);
  clients.push(client);
  return { client, rotation };
}

const QUOTES = [{ channelId: 'data.quotes', bindingId: 'q', options: { symbols: ['PAPER:EURUSD'] } }];

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

describe('SPEC §13 §14 a stateless 2026-07-28 client across nodes', () => {
  it('a 2026-07-28 client whose successive requests go to A, B and C in turn keeps its attachment: one id and namespace in the page, a faithful retry through another node returns the recorded receipt, a subscription started on A is polled on C', async () => {
    const [a, b, c] = nodes as [ServerHandle, ServerHandle, ServerHandle];
    proxy.targets = [nodePort(a)];
    const terminal = await openTerminal('alice', await pairCode(a, 'alice'), 'stateless');
    proxy.targets = nodes.map(nodePort);
    const { client, rotation } = await statelessClient('alice');
    const echo = (value: string, attachment?: string) =>
      callTool<CallReceipt>(client, 'tradescript_call', {
        sessionId: terminal.sessionId,
        target: SESSION,
        controlId: 'desk.echo',
        args: [value],
        ...(attachment === undefined ? {} : { attachment }),
      });
    const minted = await echo('rr-0');
    expect(minted.isError).toBe(false);
    const handle = minted.envelope.meta.attachment ?? '';
    expect(handle).toMatch(/^ta1\./);
    const from = rotation.hits.length;
    for (const value of ['rr-1', 'rr-2', 'rr-3']) {
      const answer = await echo(value, handle);
      expect(answer.envelope.data?.result, value).toEqual({ value, tab: 'stateless' });
      expect(answer.envelope.meta.attachment).toBe(handle);
    }
    const book = () =>
      callTool<CallReceipt>(client, 'tradescript_call', {
        sessionId: terminal.sessionId,
        target: SESSION,
        controlId: 'desk.book',
        args: ['rr-ticket'],
        context: { operationId: 'op-rr-ticket' },
        attachment: handle,
      });
    const booked = await book();
    expect(booked.envelope.data?.result).toEqual({ ref: 'rr-ticket', count: 1 });
    const bookedOn = rotation.hits.at(-1);
    // The same request again, through the next node: the page's ledger returns the recorded receipt.
    const again = await book();
    expect(rotation.hits.at(-1)).not.toBe(bookedOn);
    expect(again.envelope.data?.result).toEqual({ ref: 'rr-ticket', count: 1 });
    expect(again.envelope.data?.operationId).toBe(booked.envelope.data?.operationId);
    expect(new Set(rotation.hits.slice(from))).toEqual(new Set(nodes.map((n) => n.ready.mcpUrl)));
    expect(await terminal.page.evaluate(() => window.clusterTest.dispatches())).toEqual({ 'rr-ticket': 1 });
    const askedBy = await terminal.page.evaluate(() => window.clusterTest.askedBy());
    const mine = askedBy.filter((x) => x.value.startsWith('rr-'));
    expect(mine.map((x) => x.value)).toEqual(['rr-0', 'rr-1', 'rr-2', 'rr-3', 'rr-ticket']);
    expect(new Set(mine.map((x) => `${x.attachmentId} ${x.namespace}`)).size).toBe(1);
    // The sessions resource, read through any node, lists the attachment once.
    const listed = (await sessionsOf(client)).sessions.find((x) => x.sessionId === terminal.sessionId);
    expect(listed?.attachments.filter((x) => x.attachmentId === mine[0]?.attachmentId)).toHaveLength(1);
    // A subscription started through A is polled through C and stopped through B.
    rotation.pin(a.ready.mcpUrl ?? '');
    const started = await callTool<{ subscriptionId: string }>(client, 'tradescript_subscribe', {
      action: 'start',
      sessionId: terminal.sessionId,
      target: SESSION,
      bindings: QUOTES,
      attachment: handle,
    });
    expect(started.isError).toBe(false);
    const subscriptionId = started.envelope.data?.subscriptionId ?? '';
    rotation.pin(c.ready.mcpUrl ?? '');
    const polled = await callTool(client, 'tradescript_subscribe', {
      action: 'poll',
      subscriptionId,
      attachment: handle,
    });
    expect(polled.isError, JSON.stringify(polled.envelope.error)).toBe(false);
    rotation.pin(b.ready.mcpUrl ?? '');
    const stopped = await callTool(client, 'tradescript_subscribe', {
      action: 'stop',
      subscriptionId,
      attachment: handle,
    });
    expect(stopped.isError).toBe(false);
    rotation.pin(null);
  });
});

describe('SPEC §14 tenants', () => {
  it('two principals with two terminals never see each other: every tool, resource and subscription id of one is not found for the other, over 2025 sessions and stateless 2026-07-28 clients (a stolen attachment handle is refused on every node)', async () => {
    const [a, b] = nodes as [ServerHandle, ServerHandle];
    const aliceTerminal = await openTerminal('alice', await pairCode(a, 'alice'), 'alice');
    const bobTerminal = await openTerminal('bob', await pairCode(b, 'bob'), 'bob');
    const alice = await client(a, 'alice');
    const bob = await client(b, 'bob');
    const started = await callTool<{ subscriptionId: string }>(alice, 'tradescript_subscribe', {
      action: 'start',
      sessionId: aliceTerminal.sessionId,
      target: SESSION,
      bindings: [{ channelId: 'data.quotes', bindingId: 'q', options: { symbols: ['PAPER:EURUSD'] } }],
    });
    expect(started.isError).toBe(false);
    const subscriptionId = started.envelope.data?.subscriptionId ?? '';
    const readsBefore = await aliceTerminal.page.evaluate(() => window.clusterTest.reads());
    const theirs = aliceTerminal.sessionId;
    const attempts: Array<[string, Record<string, unknown>]> = [
      ['tradescript_get_context', { sessionId: theirs, target: SESSION }],
      ['tradescript_list_controls', { sessionId: theirs, target: SESSION }],
      ['tradescript_call', { sessionId: theirs, target: SESSION, controlId: 'desk.echo', args: ['x'] }],
      [
        'tradescript_call',
        {
          sessionId: theirs,
          target: SESSION,
          controlId: 'desk.book',
          args: ['x'],
          context: { operationId: 'steal-1' },
        },
      ],
      ['tradescript_batch', { sessionId: theirs, calls: [{ target: SESSION, controlId: 'desk.echo', args: ['x'] }] }],
      ['tradescript_snapshot', { sessionId: theirs, target: SESSION }],
      [
        'tradescript_subscribe',
        {
          action: 'start',
          sessionId: theirs,
          target: SESSION,
          bindings: [{ channelId: 'data.quotes', bindingId: 'q', options: { symbols: ['X'] } }],
        },
      ],
      ['tradescript_subscribe', { action: 'list', sessionId: theirs }],
    ];
    for (const [tool, args] of attempts) {
      const answer = await callTool(bob, tool, args);
      expect(answer.isError, `${tool} ${JSON.stringify(args)}`).toBe(true);
      expect(errorOf(answer.envelope), tool).toBe('session_not_found');
    }
    for (const action of ['poll', 'stop'] as const) {
      const answer = await callTool(bob, 'tradescript_subscribe', { action, subscriptionId });
      expect(errorOf(answer.envelope), action).toBe('subscription_not_found');
    }
    const bobSees = await sessionsOf(bob);
    expect(bobSees.sessions.map((s) => s.sessionId)).toEqual([bobTerminal.sessionId]);
    expect(bobSees.sessions.flatMap((s) => s.attachments.map((x) => x.clientName))).not.toContain(
      expect.stringMatching(/alice/),
    );
    const resources = await bob.listResources();
    expect(resources.resources.map((r) => r.uri)).not.toContain(sessionContextUri(theirs));
    await expect(bob.readResource({ uri: sessionContextUri(theirs) })).rejects.toThrow();
    // Bob presenting Alice's MCP session id with his own token reaches nothing of hers.
    const aliceMcpSession = (alice.transport as { sessionId?: string } | undefined)?.sessionId ?? '';
    expect(aliceMcpSession).not.toBe('');
    const hijack = await fetch(a.ready.mcpUrl ?? '', {
      method: 'POST',
      headers: {
        Authorization: `Bearer ${TOKENS.bob}`,
        'Content-Type': 'application/json',
        Accept: 'application/json, text/event-stream',
        'Mcp-Session-Id': aliceMcpSession,
        'Mcp-Protocol-Version': '2025-11-25',
      },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 99,
        method: 'tools/call',
        params: {
          name: 'tradescript_call',
          arguments: { sessionId: theirs, target: SESSION, controlId: 'desk.echo', args: ['hijack'] },
        },
      }),
    });
    expect(await hijack.text()).toContain('session_not_found');
    // Nothing of Bob's reached Alice's terminal; her own subscription still polls.
    expect(await aliceTerminal.page.evaluate(() => window.clusterTest.reads())).toBe(readsBefore);
    expect(await aliceTerminal.page.evaluate(() => window.clusterTest.dispatches())).toEqual({});
    const polled = await callTool(alice, 'tradescript_subscribe', { action: 'poll', subscriptionId });
    expect(polled.isError).toBe(false);

    // Stateless 2026-07-28 clients, each request to the next node: Bob holding Alice's stolen handle gets nothing.
    const aliceStateless = await statelessClient('alice');
    const mine = await callTool(aliceStateless.client, 'tradescript_call', {
      sessionId: theirs,
      target: SESSION,
      controlId: 'desk.echo',
      args: ['mine'],
    });
    const aliceHandle = mine.envelope.meta.attachment ?? '';
    expect(aliceHandle).toMatch(/^ta1\./);
    const statelessStarted = await callTool<{ subscriptionId: string }>(
      aliceStateless.client,
      'tradescript_subscribe',
      {
        action: 'start',
        sessionId: theirs,
        target: SESSION,
        bindings: QUOTES,
        attachment: aliceHandle,
      },
    );
    const statelessSubscription = statelessStarted.envelope.data?.subscriptionId ?? '';
    expect(statelessSubscription).not.toBe('');
    const readsThen = await aliceTerminal.page.evaluate(() => window.clusterTest.reads());
    const bobStateless = await statelessClient('bob');
    for (const [tool, args] of attempts) {
      const stolen = await callTool(bobStateless.client, tool, { ...args, attachment: aliceHandle });
      expect(errorOf(stolen.envelope), `${tool} with her handle`).toBe('invalid_input');
      expect(stolen.envelope.error?.validation_errors.map((v) => v.path)).toEqual([['attachment']]);
      expect(JSON.stringify(stolen.envelope)).not.toContain(aliceHandle);
      const own = await callTool(bobStateless.client, tool, args);
      expect(errorOf(own.envelope), `${tool} with his own attachment`).toBe('session_not_found');
    }
    for (const action of ['poll', 'stop'] as const) {
      for (const id of [subscriptionId, statelessSubscription]) {
        const answer = await callTool(bobStateless.client, 'tradescript_subscribe', { action, subscriptionId: id });
        expect(errorOf(answer.envelope), `${action} ${id}`).toBe('subscription_not_found');
        const stolen = await callTool(bobStateless.client, 'tradescript_subscribe', {
          action,
          subscriptionId: id,
          attachment: aliceHandle,
        });
        expect(errorOf(stolen.envelope), `${action} ${id} with her handle`).toBe('invalid_input');
      }
    }
    expect(new Set(bobStateless.rotation.hits)).toEqual(new Set(nodes.map((n) => n.ready.mcpUrl)));
    expect(await aliceTerminal.page.evaluate(() => window.clusterTest.reads())).toBe(readsThen);
    expect(await aliceTerminal.page.evaluate(() => window.clusterTest.dispatches())).toEqual({});
    const stillHers = await callTool(aliceStateless.client, 'tradescript_subscribe', {
      action: 'poll',
      subscriptionId: statelessSubscription,
      attachment: aliceHandle,
    });
    expect(stillHers.isError).toBe(false);
  });
});

describe('SPEC §14 faults', () => {
  it('a node killed mid-load: 0 lost and 0 misrouted calls, every interrupted mutation reported uncertain by the node the client talks to, none dispatched twice', async () => {
    const [victim, , c] = nodes as [ServerHandle, ServerHandle, ServerHandle];
    proxy.targets = [nodePort(victim)];
    const terminal = await openTerminal('alice', await pairCode(victim, 'alice'), 'load');
    proxy.targets = nodes.map(nodePort);
    await terminal.page.evaluate(() => window.clusterTest.setDelay(150));
    const alice = await client(c, 'alice');
    type Sent = { kind: 'echo' | 'book'; key: string; code: string | null; result: unknown; threw: boolean };
    const done: Sent[] = [];
    let killed = false;
    const callOnce = async (kind: Sent['kind'], key: string): Promise<Sent> => {
      const args =
        kind === 'echo'
          ? { sessionId: terminal.sessionId, target: SESSION, controlId: 'desk.echo', args: [key] }
          : {
              sessionId: terminal.sessionId,
              target: SESSION,
              controlId: 'desk.book',
              args: [key],
              context: { operationId: `op-${key}` },
            };
      try {
        const answer = await callTool<CallReceipt>(alice, 'tradescript_call', args);
        return {
          kind,
          key,
          code: errorOf(answer.envelope),
          result: answer.envelope.data?.result ?? null,
          threw: false,
        };
      } catch {
        return { kind, key, code: null, result: null, threw: true };
      }
    };
    const worker = async (w: number) => {
      for (let i = 0; done.length < 160; i++) {
        const kind = i % 2 === 0 ? 'echo' : 'book';
        done.push(await callOnce(kind, `${w}-${i}`));
      }
    };
    const killer = (async () => {
      while (done.length < 30 || (await terminal.page.evaluate(() => window.clusterTest.inFlight())) === 0) {
        await new Promise((resolve) => setTimeout(resolve, 5));
      }
      process.kill(-victim.pid, 'SIGKILL');
      killed = true;
    })();
    await Promise.all([0, 1, 2, 3].map(worker));
    await killer;
    expect(killed).toBe(true);
    const dispatches = await terminal.page.evaluate(() => window.clusterTest.dispatches());
    // 0 lost: every call was answered with an envelope.
    expect(done.filter((d) => d.threw)).toEqual([]);
    // 0 misrouted: every answer is the answer to its own call, from this terminal.
    for (const d of done.filter((x) => x.code === null)) {
      expect(d.result).toEqual(d.kind === 'echo' ? { value: d.key, tab: 'load' } : { ref: d.key, count: 1 });
    }
    const failedBooks = done.filter((d) => d.kind === 'book' && d.code !== null);
    const interrupted = failedBooks.filter((d) => (dispatches[d.key] ?? 0) > 0);
    expect(interrupted.length).toBeGreaterThan(0);
    for (const d of interrupted) expect(d.code, d.key).toBe('uncertain_execution');
    for (const d of failedBooks.filter((x) => x.code !== 'uncertain_execution')) {
      expect(d.code).toBe('transport_error');
      expect(dispatches[d.key] ?? 0, `${d.key} was reported not sent`).toBe(0);
    }
    for (const d of done.filter((x) => x.kind === 'echo' && x.code !== null)) expect(d.code).toBe('transport_error');
    // Operation identity across nodes: retrying each uncertain call returns its recorded outcome, never runs it again.
    for (const d of failedBooks.filter((x) => x.code === 'uncertain_execution')) {
      const again = await callOnce('book', d.key);
      expect(again.code, d.key).toBe(null);
      expect(again.result).toEqual({ ref: d.key, count: 1 });
    }
    const after = await terminal.page.evaluate(() => window.clusterTest.dispatches());
    expect(Object.entries(after).filter(([, n]) => n > 1)).toEqual([]);
    // The tab came back through the same address, on another node, with its session id.
    expect(await terminal.page.evaluate(() => window.clusterTest.status()?.sessionId)).toBe(terminal.sessionId);
    await victim.exited;
    nodes[0] = await startNode();
    proxy.targets = nodes.map(nodePort);
  });

  it('Redis restarted: calls meanwhile fail fast with transport_error; service resumes without restarting any node', async () => {
    const [a, , c] = nodes as [ServerHandle, ServerHandle, ServerHandle];
    proxy.targets = [nodePort(a)];
    const terminal = await openTerminal('alice', await pairCode(a, 'alice'), 'restart');
    proxy.targets = nodes.map(nodePort);
    const alice = await client(c, 'alice');
    const echo = (value: string) =>
      callTool(alice, 'tradescript_call', {
        sessionId: terminal.sessionId,
        target: SESSION,
        controlId: 'desk.echo',
        args: [value],
      });
    expect((await echo('before')).isError).toBe(false);
    await redis.stop();
    const during = await echo('during');
    expect(errorOf(during.envelope)).toBe('transport_error');
    await redis.start();
    for (const node of nodes) await waitForReady(node);
    const after = await echo('after');
    expect(after.isError).toBe(false);
    expect(after.envelope.data).toMatchObject({ result: { value: 'after', tab: 'restart' } });
  });
});

describe('SPEC §14 the extension on a vendor relay', () => {
  it("the popup's relay token rides the upgrade: without it the relay refuses the extension, with it the extension pairs for its principal and the token is never shown back", async () => {
    const extensionDir = join(repoRoot, 'dist/extension');
    const persistent = await launchPersistentBrowser({ extensionPaths: [extensionDir] });
    try {
      const popup = await PopupDriver.open(persistent.context, extensionIdOf(extensionDir));
      const relay = `${proxy.origin.replace(/^http/, 'ws')}/relay`;
      const before = proxy.routed.length;
      await popup.setRelay(relay);
      await expect.poll(() => popup.relayState()).toBe('unpaired');
      await popup.root.locator('input[name=pair-code]').fill(await pairCode(nodes[1] as ServerHandle, 'bob'));
      await popup.root.locator('form:has(input[name=pair-code]) button').click();
      // The upgrade is refused (401) before any hello: the popup never gets to paired.
      await expect.poll(() => proxy.routed.length).toBeGreaterThan(before);
      expect(await popup.relayState()).not.toBe('paired');
      await popup.setRelay(relay, TOKENS.bob);
      await popup.pair(await pairCode(nodes[2] as ServerHandle, 'bob'));
      expect(await popup.root.locator('input[name=relay-token]').inputValue()).toBe('');
      expect(await popup.page.content()).not.toContain(TOKENS.bob);
    } finally {
      await persistent.close();
    }
  });
});
