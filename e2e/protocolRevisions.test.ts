/**
 * SPEC §2, §13: both protocol revisions, over HTTP and stdio, against the
 * demo in Chromium through the real CLI. The same agent flow passes with a
 * 2026-07-28 client (the SDK v2 client; over HTTP stateless, threading its
 * attachment handle; over stdio through the SDK's own version probe) and with
 * a 2025-11-25 client (the SDK v1 client, as deployed). Two stateless clients
 * with the same operationId each get their own outcome, and a client that
 * restarts (a new handle) cannot place the same order twice.
 */
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CallReceipt } from '../src/protocol/index.js';
import {
  connectHttpClient,
  connectStdioClient,
  connectV1HttpClient,
  connectV1StdioClient,
  launchBrowser,
  newPage,
  pairPage,
  startServer,
  type AnyMcpClient,
  type ReadyInfo,
} from './harness/index.js';
import { Agent, ordersWith, placement, raiseGrant, runAgentFlow } from './harness/agentFlow.js';

type Era = '2026-07-28' | '2025-11-25';
type Over = 'http' | 'stdio';

interface Opened {
  agent: Agent;
  page: Page;
  sessionId: string;
  close(): Promise<void>;
}

const run = Math.random().toString(36).slice(2, 6).toUpperCase();

/** `demo --enable-trading` over `over`, a paired tab, and a client of `era`. */
async function open(era: Era, over: Over, browser: Browser): Promise<Opened> {
  const { page } = await newPage(browser);
  let client: AnyMcpClient;
  let ready: ReadyInfo;
  let stop: () => Promise<void>;
  if (over === 'http') {
    const server = await startServer(['demo', '--enable-trading']);
    ready = server.ready;
    const url = ready.mcpUrl ?? '';
    client = era === '2026-07-28' ? await connectHttpClient(url, { era: 'modern' }) : await connectV1HttpClient(url);
    stop = server.close;
  } else {
    const args = ['demo', '--stdio', '--enable-trading'];
    const handle =
      era === '2026-07-28' ? await connectStdioClient(args, { era: 'modern' }) : await connectV1StdioClient(args);
    ({ client, ready } = handle);
    stop = handle.close;
  }
  const sessionId = await pairPage(page, ready.pairUrl ?? '');
  return {
    agent: new Agent(client, era === '2026-07-28' && over === 'http'),
    page,
    sessionId,
    close: async () => {
      await client.close().catch(() => undefined);
      await stop();
      await page.close();
    },
  };
}

describe('the agent flow on both revisions (SPEC §3, §5, §7, §8, §13)', () => {
  let browser: Browser;
  beforeAll(async () => {
    browser = await launchBrowser();
  });
  afterAll(async () => {
    await browser?.close();
  });

  const cases: Array<[Era, Over]> = [
    ['2026-07-28', 'http'],
    ['2026-07-28', 'stdio'],
    ['2025-11-25', 'http'],
    ['2025-11-25', 'stdio'],
  ];
  it.each(cases)(
    'SPEC §13 a %s client over %s: sessions, context, list_controls, a call with revisions, a batch, a subscription, a snapshot, a paper trade with the grant',
    async (era, over) => {
      const opened = await open(era, over, browser);
      try {
        if (era === '2026-07-28' && over === 'stdio') {
          expect((opened.agent.client as { getProtocolEra(): string }).getProtocolEra()).toBe('modern');
        }
        await runAgentFlow(opened.agent, opened.page, opened.sessionId, `${run}${era.slice(2, 4)}${over[0]}`);
        if (opened.agent.stateless) expect(opened.agent.handle).toMatch(/^ta1\./);
      } finally {
        await opened.close();
      }
    },
  );
});

describe('stateless attachments in a real terminal (SPEC §2, §5, §13)', () => {
  let browser: Browser;
  let page: Page;
  let mcpUrl: string;
  let sessionId: string;
  let closeServer: () => Promise<void>;
  beforeAll(async () => {
    browser = await launchBrowser();
    ({ page } = await newPage(browser));
    const server = await startServer(['demo', '--enable-trading']);
    closeServer = server.close;
    mcpUrl = server.ready.mcpUrl ?? '';
    sessionId = await pairPage(page, server.ready.pairUrl ?? '');
    await raiseGrant(page);
  });
  afterAll(async () => {
    await closeServer?.();
    await browser?.close();
  });

  it('SPEC §2 two stateless clients with the same operationId each get their own outcome; a restarted client cannot place the order twice', async () => {
    const one = new Agent(await connectHttpClient(mcpUrl, { era: 'modern', name: 'agent-one' }), true);
    const two = new Agent(await connectHttpClient(mcpUrl, { era: 'modern', name: 'agent-two' }), true);
    const operationId = `${run}-same-op`;
    const orderOne = `${run}S1`;
    const orderTwo = `${run}S2`;
    const placeOne = await placement(one, sessionId, orderOne, operationId);
    const first = await one.call<CallReceipt>('tradescript_call', placeOne);
    const second = await two.call<CallReceipt>(
      'tradescript_call',
      await placement(two, sessionId, orderTwo, operationId),
    );
    expect(first.envelope.error, JSON.stringify(first.envelope.error)).toBeNull();
    expect(second.envelope.error, JSON.stringify(second.envelope.error)).toBeNull();
    expect(one.handle).not.toBe(two.handle);
    expect(first.envelope.data!.operationId).toBe(operationId);
    expect(second.envelope.data!.operationId).toBe(operationId);
    expect(second.envelope.data).not.toEqual(first.envelope.data);
    expect(await ordersWith(one, sessionId, orderOne)).toHaveLength(1);
    expect(await ordersWith(one, sessionId, orderTwo)).toHaveLength(1);

    // Both show in tradescript://sessions as attachments of their own; neither sees the other's handle.
    const listed = (await one.sessions()).sessions.find((s) => s.sessionId === sessionId)!;
    const names = listed.attachments.map((a) => a.clientName);
    expect(names).toEqual(expect.arrayContaining(['agent-one', 'agent-two']));
    expect(JSON.stringify(listed)).not.toContain(one.handle!);

    // A faithful retry by agent one itself (same handle, same bytes) returns its recorded receipt.
    expect((await one.call<CallReceipt>('tradescript_call', placeOne)).envelope.data).toEqual(first.envelope.data);

    // Agent one restarts: a new client without its handle sends the same placement again.
    const placed = () => page.evaluate(() => window.__tradescriptDemo!.broker.requests('orders.placeOrder'));
    const before = await placed();
    const restarted = new Agent(await connectHttpClient(mcpUrl, { era: 'modern', name: 'agent-one' }), true);
    const stale = await restarted.call<CallReceipt>('tradescript_call', placeOne);
    expect(restarted.handle).not.toBe(one.handle);
    expect(stale.envelope.error?.code).toBe('revision_conflict');
    // Re-reading the revision as an agent would, the same placement reaches the broker: its client order id refuses it.
    const orders = await restarted.call<{ controllerRevisions: Record<string, Record<string, number>> }>(
      'tradescript_get_context',
      { sessionId, target: { scope: 'session' } },
    );
    const current = { orders: orders.envelope.data!.controllerRevisions['orders']!['orders']! };
    const retry = await restarted.call<CallReceipt>('tradescript_call', { ...placeOne, expectedRevisions: current });
    expect(retry.envelope.error).toMatchObject({ code: 'broker_rejection', broker_code: 'DUPLICATE_CLIENT_ORDER_ID' });
    expect(await placed()).toBe(before + 1);
    expect(await ordersWith(restarted, sessionId, orderOne)).toHaveLength(1);
    for (const agent of [one, two, restarted]) await agent.client.close();
  });
});
