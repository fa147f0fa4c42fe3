/**
 * Faults, end to end and for real (SPEC §5 at most once, §9 relay): the real
 * CLI (`demo --enable-trading --grant trade`), the demo in Chromium, a real
 * MCP client. The page's relay socket runs through a loopback TCP proxy the
 * test controls, so a network drop is a real cut with no close frame. Faults:
 * broker latency on a read and on a mutation, socket drops during and before
 * dispatch, a page reload mid-call, a server crash and restart on the same
 * ports and home mid-call, and a slow page under concurrent calls. The
 * broker's own order book proves that no mutation is ever replayed.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Client } from '@modelcontextprotocol/client';
import type { Browser, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { CallReceipt, ContextData, ErrorObject, SessionsDocument } from '../src/protocol/index.js';
import { startRelayProxy, type RelayProxy } from '../src/testing/relayProxy.js';
import {
  callTool,
  connectHttpClient,
  launchBrowser,
  newPage,
  pairPage,
  startServer,
  type ServerHandle,
  type ToolCall,
} from './harness/index.js';
import { MAIN_CHART } from './harness/terminal.js';

/** What the test reads and does through `window.__tradescriptDemo`. */
interface DemoWindow {
  __tradescriptDemo: {
    host: { grant: string };
    bridgeStatus(): { state: string; sessionId: string | null };
    charts: Record<string, { tradingLines(): Array<{ label: string }> }>;
    broker: {
      orders(accountId?: string): Array<{ clientOrderId: string; status: string }>;
      faults: {
        add(spec: { kind: string; scope?: string; ms?: number }): unknown;
        clear(): void;
      };
    };
  };
}

const SESSION = { scope: 'session' } as const;
const home = mkdtempSync(join(tmpdir(), 'tradescript-faults-'));
const SERVER_ARGS = ['demo', '--enable-trading', '--grant', 'trade'];
let server: ServerHandle;
let proxy: RelayProxy;
let browser: Browser;
let page: Page;
let client: Client;
let sessionId: string;
let ports: { mcp: string; demo: string };
const injected = { latency: 0, drops: 0, refusals: 0, reloads: 0, crashes: 0 };
let clientOrders = 0;

/** Routes the page's relay through the proxy: `/tradescript-config.json` names it instead of the relay. */
async function routeRelayThroughProxy(target: Page): Promise<void> {
  await target.route('**/tradescript-config.json', async (route) => {
    const response = await route.fetch();
    const config = (await response.json()) as Record<string, unknown>;
    await route.fulfill({ response, json: { ...config, relayUrl: `ws://127.0.0.1:${proxy.port}/relay` } });
  });
}

async function addLatency(scope: string, ms: number): Promise<void> {
  injected.latency += 1;
  await page.evaluate(
    (spec) => {
      (window as unknown as DemoWindow).__tradescriptDemo.broker.faults.add(spec);
    },
    { kind: 'latency', scope, ms },
  );
}

const clearFaults = () =>
  page.evaluate(() => (window as unknown as DemoWindow).__tradescriptDemo.broker.faults.clear());
const ordersWith = (clientOrderId: string) =>
  page.evaluate(
    (id) =>
      (window as unknown as DemoWindow).__tradescriptDemo.broker.orders().filter((o) => o.clientOrderId === id).length,
    clientOrderId,
  );
const linesShown = () =>
  page.evaluate(() => (window as unknown as DemoWindow).__tradescriptDemo.charts['btc-main']!.tradingLines().length);

/** Resolves once the page's broker holds an order with `clientOrderId` (bounded). */
async function orderArrives(clientOrderId: string): Promise<void> {
  await page.waitForFunction(
    (id) =>
      (window as unknown as DemoWindow).__tradescriptDemo.broker.orders().filter((o) => o.clientOrderId === id).length >
      0,
    clientOrderId,
    { timeout: 15_000, polling: 100 },
  );
}

/** Resolves once the tab is paired again with `expected` (bounded). */
async function pairedAgain(expected = sessionId, timeoutMs = 20_000): Promise<void> {
  await page.waitForFunction(
    (id) => {
      const status = (window as unknown as DemoWindow).__tradescriptDemo?.bridgeStatus();
      return status?.state === 'paired' && status.sessionId === id;
    },
    expected,
    { timeout: timeoutMs, polling: 50 },
  );
}

/** Resolves once tradescript://sessions lists the tab's session as not connected (bounded). */
async function hubSeesDisconnected(timeoutMs = 5_000): Promise<void> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const read = await client.readResource({ uri: 'tradescript://sessions' });
    const first = read.contents[0];
    const text = first && 'text' in first ? first.text : '{}';
    const listed = (JSON.parse(text) as SessionsDocument).sessions.find((s) => s.sessionId === sessionId);
    if (listed && !listed.connected) return;
    if (Date.now() > until) throw new Error('the hub still lists the session as connected after the socket drop');
    await pause(20);
  }
}

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** A preview of a far-from-market limit buy (it stays working) and the placement call for it. */
async function placement(label: string, operationId: string) {
  clientOrders += 1;
  const clientOrderId = `${label}${clientOrders}`.slice(0, 20);
  const request = {
    accountId: 'PAPER-001',
    symbol: 'BTCUSDT',
    side: 'buy',
    type: 'limit',
    quantity: '0.01',
    limitPrice: '45000.00',
    clientOrderId,
  };
  const preview = await callTool<CallReceipt>(client, 'tradescript_call', {
    sessionId,
    target: SESSION,
    controlId: 'orders.previewOrder',
    args: [request],
  });
  expect(preview.envelope.error).toBeNull();
  const { placementArguments } = preview.envelope.data!.result as { placementArguments: unknown };
  const context = await callTool<ContextData>(client, 'tradescript_get_context', { sessionId, target: SESSION });
  const orders = context.envelope.data!.controllerRevisions['orders']!['orders']!;
  return {
    clientOrderId,
    args: {
      sessionId,
      target: SESSION,
      controlId: 'orders.placeOrder',
      args: [placementArguments],
      expectedRevisions: { orders },
      context: { operationId },
    },
  };
}

function expectUncertain(call: ToolCall<unknown>, operationId: string): ErrorObject {
  expect(call.isError).toBe(true);
  const error = call.envelope.error!;
  expect(error).toMatchObject({ code: 'uncertain_execution', retry: 'after_reconcile' });
  expect(error.details?.receipt).toMatchObject({ operationId, controlId: 'orders.placeOrder', mutation: true });
  return error;
}

async function startDemoServer(extra: string[] = []): Promise<ServerHandle> {
  return startServer([...SERVER_ARGS, ...extra], { home });
}

beforeAll(async () => {
  server = await startDemoServer();
  const relay = new URL(server.ready.relayUrl);
  ports = { mcp: relay.port, demo: new URL(server.ready.demoUrl!).port };
  proxy = await startRelayProxy({ host: relay.hostname, port: Number(relay.port) });
  browser = await launchBrowser();
  page = (await newPage(browser)).page;
  await routeRelayThroughProxy(page);
  sessionId = await pairPage(page, server.ready.pairUrl!);
  expect(proxy.accepted).toBeGreaterThan(0);
  expect(await page.evaluate(() => (window as unknown as DemoWindow).__tradescriptDemo.host.grant)).toBe('trade');
  client = await connectHttpClient(server.ready.mcpUrl!);
});

// A test that failed with the relay down must not take the tests after it down too.
afterEach(() => {
  if (proxy) proxy.down = false;
});

afterAll(async () => {
  console.log(`faults injected: ${JSON.stringify(injected)}`);
  await client?.close().catch(() => undefined);
  await proxy?.close();
  await server?.close();
  rmSync(home, { recursive: true, force: true });
});

describe('SPEC §9 a socket drop before dispatch', () => {
  // First in the file: the bridge's reconnect backoff is at its first step, so the tab returns within the hub's wait.
  it('SPEC §9 a call sent while the tab is reconnecting waits for it and runs exactly once on the new socket', async () => {
    const { clientOrderId, args } = await placement('WAIT', 'wait-op-1');
    proxy.down = true;
    injected.refusals += 1;
    injected.drops += proxy.drop();
    let pending: Promise<ToolCall<CallReceipt>>;
    try {
      // The call must leave after the hub saw the old socket close, or it would go down that socket and be lost.
      await hubSeesDisconnected();
      pending = callTool<CallReceipt>(client, 'tradescript_call', args);
      await pause(400);
    } finally {
      proxy.down = false;
    }
    const placed = await pending;
    expect(placed.envelope.error).toBeNull();
    expect(placed.envelope.data).toMatchObject({ operationId: 'wait-op-1', mutation: true });
    await pairedAgain();
    await pause(500);
    expect(await ordersWith(clientOrderId)).toBe(1);
  });
});

describe('SPEC §9 a socket drop while a call is in flight', () => {
  it('SPEC §9 a read in flight is transport_error (retry after backoff); the tab comes back with its session and the read then works', async () => {
    await addLatency('orders.list', 3_000);
    const pending = callTool(client, 'tradescript_call', {
      sessionId,
      target: SESSION,
      controlId: 'orders.list',
      requestId: 'read-during-drop',
    });
    await pause(600);
    injected.drops += proxy.drop();
    const read = await pending;
    expect(read.envelope.error).toMatchObject({ code: 'transport_error', retry: 'after_backoff' });
    expect(read.envelope.meta).toMatchObject({ sessionId, requestId: 'read-during-drop' });
    await pairedAgain();
    await clearFaults();
    const again = await callTool<CallReceipt>(client, 'tradescript_call', {
      sessionId,
      target: SESSION,
      controlId: 'orders.list',
    });
    expect(again.envelope.error).toBeNull();
    expect(again.envelope.meta.sessionId).toBe(sessionId);
  });

  it('SPEC §5 a mutation in flight is uncertain_execution with its operation id; it ran once at the broker and is never replayed', async () => {
    const { clientOrderId, args } = await placement('DROP', 'drop-op-1');
    await addLatency('orders.placeOrder', 2_000);
    const pending = callTool(client, 'tradescript_call', args);
    await pause(600);
    injected.drops += proxy.drop();
    expectUncertain(await pending, 'drop-op-1');
    await pairedAgain();
    // The page was never told to stop: the placement runs to its outcome after the latency, exactly once.
    await orderArrives(clientOrderId);
    await clearFaults();
    await pause(1_500);
    expect(await ordersWith(clientOrderId)).toBe(1);
    // The page finished the placement and recorded it: a faithful reuse of the id returns that receipt
    // (or, had the page not finished, the uncertain outcome); nothing runs again.
    const reuse = await callTool<CallReceipt>(client, 'tradescript_call', args);
    if (reuse.isError) expect(reuse.envelope.error?.code).toBe('uncertain_execution');
    else expect(reuse.envelope.data).toMatchObject({ operationId: 'drop-op-1', result: { clientOrderId } });
    expect(await ordersWith(clientOrderId)).toBe(1);
  });
});

describe('SPEC §5 a tab that stays away', () => {
  it('SPEC §5 a call whose tab stays away is refused, never queued: when the tab returns nothing has run', async () => {
    const before = await linesShown();
    const context = await callTool<ContextData>(client, 'tradescript_get_context', { sessionId, target: MAIN_CHART });
    const revision = context.envelope.data!.controllerRevisions['chart']!['tradingLines']!;
    proxy.down = true;
    injected.refusals += 1;
    injected.drops += proxy.drop();
    let refused: ToolCall<unknown>;
    try {
      // Sent before the hub saw the socket close, the call would go down it and be (rightly) uncertain.
      await hubSeesDisconnected();
      refused = await callTool(client, 'tradescript_call', {
        sessionId,
        target: MAIN_CHART,
        controlId: 'chart.createTradingLine',
        args: [{ kind: 'alert', price: '60000.5', label: 'never-queued' }],
        expectedRevisions: { tradingLines: revision },
      });
    } finally {
      // Whatever happened above, the tab must come back for the tests after this one.
      proxy.down = false;
    }
    expect(refused.isError).toBe(true);
    expect(['session_closed', 'transport_error']).toContain(refused.envelope.error?.code);
    await pairedAgain();
    await pause(500);
    expect(await linesShown()).toBe(before);
  });
});

describe('SPEC §9 a page reload mid-call', () => {
  it('SPEC §5 §9 a read is transport_error and a mutation uncertain_execution; the reloaded tab keeps its session and nothing is replayed into it', async () => {
    const { clientOrderId, args } = await placement('RELOAD', 'reload-op-1');
    await addLatency('orders.placeOrder', 4_000);
    await addLatency('orders.list', 4_000);
    const mutation = callTool(client, 'tradescript_call', args);
    const read = callTool(client, 'tradescript_call', { sessionId, target: SESSION, controlId: 'orders.list' });
    await pause(600);
    injected.reloads += 1;
    await page.reload();
    expectUncertain(await mutation, 'reload-op-1');
    expect((await read).envelope.error).toMatchObject({ code: 'transport_error' });
    await pairedAgain();
    // The reloaded page has a fresh paper broker: an order there could only be a replay.
    await pause(1_500);
    expect(await ordersWith(clientOrderId)).toBe(0);
    const reuse = await callTool(client, 'tradescript_call', args);
    expect(reuse.isError).toBe(true);
    expect(['uncertain_execution', 'control_failed']).toContain(reuse.envelope.error?.code);
    expect(await ordersWith(clientOrderId)).toBe(0);
  });
});

describe('SPEC §9 the server crashes mid-call and restarts on the same ports and home', () => {
  it('SPEC §5 §9 the call in flight never succeeds; the tab returns with its session and the order exists once, never replayed', async () => {
    const { clientOrderId, args } = await placement('CRASH', 'crash-op-1');
    await addLatency('orders.placeOrder', 2_000);
    // Bounded: the SDK's HTTP client would otherwise wait out its 60 s request timeout for an answer that cannot come.
    const pending = callTool(client, 'tradescript_call', args, { timeout: 5_000 }).then(
      (call) => ({ call }),
      (error: unknown) => ({ error }),
    );
    await pause(600);
    injected.crashes += 1;
    process.kill(server.pid, 'SIGKILL');
    await server.close();
    const outcome = await pending;
    if ('call' in outcome) expectUncertain(outcome.call, 'crash-op-1');
    else expect(outcome.error).toBeInstanceOf(Error);
    await client.close().catch(() => undefined);

    server = await startDemoServer(['--port', ports.mcp, '--demo-port', ports.demo]);
    await pairedAgain(sessionId, 30_000);
    client = await connectHttpClient(server.ready.mcpUrl!);
    await orderArrives(clientOrderId);
    await clearFaults();
    await pause(1_000);
    expect(await ordersWith(clientOrderId)).toBe(1);
    // A restarted client is a new attachment: its retry is a new attempt. With the revisions it read before, it
    // is a revision_conflict; re-read and resent, the broker refuses the used preview and client order id.
    const stale = await callTool(client, 'tradescript_call', args);
    expect(stale.envelope.error?.code).toBe('revision_conflict');
    const context = await callTool<ContextData>(client, 'tradescript_get_context', { sessionId, target: SESSION });
    const orders = context.envelope.data!.controllerRevisions['orders']!['orders']!;
    const retry = await callTool(client, 'tradescript_call', { ...args, expectedRevisions: { orders } });
    expect(retry.isError).toBe(true);
    expect(retry.envelope.error).toMatchObject({ code: 'broker_rejection', retry: 'after_user_action' });
    expect(await ordersWith(clientOrderId)).toBe(1);
  });
});

describe('SPEC §9 a slow page under concurrent calls', () => {
  it('SPEC §9 every answer reaches the caller that asked, with its own request id and control; none is lost', async () => {
    await addLatency('orders.list', 300);
    await addLatency('positions.list', 200);
    await addLatency('alerts.list', 100);
    const second = await connectHttpClient(server.ready.mcpUrl!);
    const controls = ['orders.list', 'positions.list', 'alerts.list', 'chart.getVisibleRange'];
    const calls = [client, second].flatMap((who, c) =>
      Array.from({ length: 12 }, (_, i) => {
        const controlId = controls[i % controls.length]!;
        const requestId = `slow-${c}-${i}`;
        const target = controlId.startsWith('chart.') ? MAIN_CHART : SESSION;
        return callTool<CallReceipt>(who, 'tradescript_call', { sessionId, target, controlId, requestId }).then(
          (answer) => ({ answer, controlId, requestId }),
        );
      }),
    );
    const answers = await Promise.all(calls);
    for (const { answer, controlId, requestId } of answers) {
      expect(answer.envelope.error, requestId).toBeNull();
      expect(answer.envelope.meta).toMatchObject({ requestId, sessionId });
      expect(answer.envelope.data).toMatchObject({ controlId, mutation: false });
    }
    await second.close();
    await clearFaults();
    expect(server.logs()).not.toMatch(/pair=|secret|REJECTED|DUPLICATE/i);
  });
});
