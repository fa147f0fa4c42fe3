/**
 * The agent flow every client must be able to run against the demo (SPEC §3,
 * §5, §7, §8, §13): sessions → context → list_controls → a call with
 * revisions → a batch → a subscription → a snapshot → a paper trade under the
 * person's `trade` grant. An {@link Agent} is one MCP client as a model drives
 * it: a stateless 2026-07-28 HTTP client threads its attachment handle from
 * each result's `meta.attachment` into the next call, as the tool
 * descriptions ask (docs/protocolRevisions.md).
 */
import type { Page } from 'playwright-core';
import { expect } from 'vitest';
import type {
  BatchData,
  CallReceipt,
  ContextData,
  ListControlsData,
  SessionsDocument,
  SnapshotData,
  SubscriptionPoll,
  Target,
} from '../../src/protocol/index.js';
import { callTool, type AnyMcpClient, type ToolCall } from './index.js';

export const SESSION: Target = { scope: 'session' };
export const MAIN_CHART: Target = { scope: 'chart', chartId: 'btc-main' };
export const TERMINAL: Target = { scope: 'widget', widgetId: 'terminal' };
export const ACCOUNT = 'PAPER-001';

/** One MCP client as a model drives it. */
export class Agent {
  /** The attachment handle of a stateless client, once the server gave one. */
  handle: string | undefined;

  constructor(
    readonly client: AnyMcpClient,
    /** True for a 2026-07-28 HTTP client: it passes `attachment` back. */
    readonly stateless: boolean,
  ) {}

  /** Calls a tool (with the handle, when it has one) and keeps the handle the result names. */
  async call<T = unknown>(name: string, args: Record<string, unknown>): Promise<ToolCall<T>> {
    const withHandle = this.stateless && this.handle !== undefined ? { ...args, attachment: this.handle } : args;
    const result = await callTool<T>(this.client, name, withHandle);
    if (this.stateless) this.handle = result.envelope.meta.attachment ?? this.handle;
    else expect(result.envelope.meta.attachment).toBeUndefined();
    return result;
  }

  /** Reads `tradescript://sessions`. */
  async sessions(): Promise<SessionsDocument> {
    const read = await this.client.readResource({ uri: 'tradescript://sessions' });
    return JSON.parse((read.contents[0] as { text: string }).text) as SessionsDocument;
  }
}

/** The person opens the bridge dock and picks "Trade" in the element's grant control. */
export async function raiseGrant(page: Page): Promise<void> {
  await page.getByTestId('bridge-dock-toggle').click();
  await page.locator('tradescript-bridge label[for="grant-trade"]').click();
  await page.waitForFunction(() => window.__tradescriptDemo?.element().grant === 'trade');
  await page.getByTestId('bridge-dock-toggle').click();
}

/** The session's `orders` revision. */
export async function ordersRevision(agent: Agent, sessionId: string): Promise<number> {
  const context = await agent.call<ContextData>('tradescript_get_context', { sessionId, target: SESSION });
  return context.envelope.data!.controllerRevisions['orders']?.['orders'] ?? 0;
}

/** A small BTC limit buy far below the market (it never fills). */
export function limitBuy(clientOrderId: string): Record<string, string> {
  return {
    accountId: ACCOUNT,
    symbol: 'BTCUSDT',
    side: 'buy',
    type: 'limit',
    quantity: '0.001',
    limitPrice: '40000',
    clientOrderId,
  };
}

/** The placement call of a fresh preview, with the current orders revision and `operationId`. */
export async function placement(
  agent: Agent,
  sessionId: string,
  clientOrderId: string,
  operationId: string,
): Promise<Record<string, unknown>> {
  const previewed = await agent.call<CallReceipt>('tradescript_call', {
    sessionId,
    target: SESSION,
    controlId: 'orders.previewOrder',
    args: [limitBuy(clientOrderId)],
  });
  expect(previewed.envelope.error).toBeNull();
  const args = [(previewed.envelope.data!.result as { placementArguments: unknown }).placementArguments];
  return {
    sessionId,
    target: SESSION,
    controlId: 'orders.placeOrder',
    args,
    expectedRevisions: { orders: await ordersRevision(agent, sessionId) },
    context: { operationId },
  };
}

/** The orders of the paper account with `clientOrderId`. */
export async function ordersWith(agent: Agent, sessionId: string, clientOrderId: string): Promise<unknown[]> {
  const listed = await agent.call<CallReceipt>('tradescript_call', {
    sessionId,
    target: SESSION,
    controlId: 'orders.list',
    args: [{ accountId: ACCOUNT, limit: 200 }],
  });
  const orders = (listed.envelope.data!.result as { orders: Array<{ clientOrderId?: string }> }).orders;
  return orders.filter((o) => o.clientOrderId === clientOrderId);
}

/** The two numeric bounds of a visible range, whatever the demo's vocabulary calls them. */
function bounds(viewport: Record<string, unknown>): Record<string, number> {
  return Object.fromEntries(
    Object.entries(viewport).filter((entry): entry is [string, number] => typeof entry[1] === 'number'),
  );
}

/** A range shifted back by half its span. */
function shifted(range: Record<string, number>): Record<string, number> {
  const values = Object.values(range);
  const span = Math.max(...values) - Math.min(...values);
  return Object.fromEntries(Object.entries(range).map(([key, value]) => [key, value - Math.floor(span / 2)]));
}

/**
 * Runs the whole flow; `tag` keeps ids apart between runs. The server must
 * run with `--enable-trading`; the flow raises the grant itself.
 */
export async function runAgentFlow(agent: Agent, page: Page, sessionId: string, tag: string): Promise<void> {
  // sessions → context → list_controls
  const sessions = await agent.sessions();
  expect(sessions.sessions.map((s) => s.sessionId)).toContain(sessionId);
  const context = await agent.call<ContextData>('tradescript_get_context', { sessionId, target: SESSION });
  expect(context.envelope.error).toBeNull();
  expect(context.envelope.data!.availableTargets.map((t) => t.target)).toContainEqual(MAIN_CHART);
  const listed = await agent.call<ListControlsData>('tradescript_list_controls', { sessionId, target: MAIN_CHART });
  expect(listed.envelope.data!.controls.map((c) => c.controlId)).toEqual(
    expect.arrayContaining(['chart.getVisibleRange', 'chart.setVisibleRange']),
  );

  // a call with revisions, then the same revisions again: a conflict that changes nothing
  const chart = await agent.call<ContextData>('tradescript_get_context', { sessionId, target: MAIN_CHART });
  const viewport = chart.envelope.data!.controllerRevisions['chart']!['viewport']!;
  const read = await agent.call<CallReceipt>('tradescript_call', {
    sessionId,
    target: MAIN_CHART,
    controlId: 'chart.getVisibleRange',
  });
  const range = bounds(read.envelope.data!.result as Record<string, unknown>);
  const moved = await agent.call<CallReceipt>('tradescript_call', {
    sessionId,
    target: MAIN_CHART,
    controlId: 'chart.setVisibleRange',
    args: [shifted(range)],
    expectedRevisions: { viewport },
    requestId: `${tag}-move`,
  });
  expect(moved.envelope.error).toBeNull();
  expect(moved.envelope.data).toMatchObject({
    revisionsBefore: { viewport },
    revisionsAfter: { viewport: viewport + 1 },
  });
  const stale = await agent.call('tradescript_call', {
    sessionId,
    target: MAIN_CHART,
    controlId: 'chart.setVisibleRange',
    args: [range],
    expectedRevisions: { viewport },
  });
  expect(stale.envelope.error).toMatchObject({
    code: 'revision_conflict',
    details: { current: { viewport: viewport + 1 } },
  });

  // a batch of reads in one round trip
  const batch = await agent.call<BatchData>('tradescript_batch', {
    sessionId,
    calls: [
      { target: MAIN_CHART, controlId: 'chart.getVisibleRange' },
      { target: SESSION, controlId: 'orders.list', args: [{ accountId: ACCOUNT, limit: 5 }] },
      { target: MAIN_CHART, controlId: 'chart.getVisibleRange' },
    ],
  });
  expect(batch.envelope.data!.outcomes.map((o) => o.status)).toEqual(['fulfilled', 'fulfilled', 'fulfilled']);

  // a subscription: start, poll until quotes arrive, stop
  const started = await agent.call<{ subscriptionId: string }>('tradescript_subscribe', {
    action: 'start',
    sessionId,
    target: SESSION,
    bindings: [{ channelId: 'data.quotes', bindingId: 'btc', options: { symbols: ['BTCUSDT'] } }],
  });
  expect(started.envelope.error).toBeNull();
  const { subscriptionId } = started.envelope.data!;
  let events = 0;
  for (let i = 0; i < 100 && events === 0; i += 1) {
    const poll = await agent.call<SubscriptionPoll>('tradescript_subscribe', { action: 'poll', subscriptionId });
    expect(poll.envelope.data!.subscriptionId).toBe(subscriptionId);
    events = poll.envelope.data!.events.length;
    if (events === 0) await new Promise((resolve) => setTimeout(resolve, 100));
  }
  expect(events).toBeGreaterThan(0);
  const mine = await agent.call<{ subscriptions: Array<{ subscriptionId: string }> }>('tradescript_subscribe', {
    action: 'list',
  });
  expect(mine.envelope.data!.subscriptions.map((s) => s.subscriptionId)).toContain(subscriptionId);
  const stopped = await agent.call('tradescript_subscribe', { action: 'stop', subscriptionId });
  expect(stopped.envelope.data).toMatchObject({ subscriptionId, status: 'stopped' });

  // a snapshot of the terminal widget
  const snap = await agent.call<SnapshotData>('tradescript_snapshot', { sessionId, target: TERMINAL });
  expect(snap.envelope.error).toBeNull();
  expect(snap.result.content.find((c) => c.type === 'image')).toMatchObject({ mimeType: 'image/png' });

  // a paper trade once the person raised the grant; a faithful retry returns the same receipt
  await raiseGrant(page);
  const clientOrderId = `${tag}P1`.replace(/[^A-Za-z0-9]/g, '').slice(0, 20);
  const place = await placement(agent, sessionId, clientOrderId, `${tag}-place`);
  const placed = await agent.call<CallReceipt>('tradescript_call', place);
  expect(placed.envelope.error).toBeNull();
  expect(placed.envelope.data).toMatchObject({ controlId: 'orders.placeOrder', operationId: `${tag}-place` });
  const retried = await agent.call<CallReceipt>('tradescript_call', place);
  expect(retried.envelope.data).toEqual(placed.envelope.data);
  expect(await ordersWith(agent, sessionId, clientOrderId)).toHaveLength(1);
}
