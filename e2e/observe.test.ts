/**
 * Subscriptions and snapshots, end to end (SPEC §7, §8): a real MCP client
 * over Streamable HTTP (and stdio for one of each) drives the demo terminal
 * in headless Chromium, opened with `?diagnostics=1` so the synthetic
 * `diagnostics.ticks` channel can force ring-buffer evictions. The demo's
 * hooks count what its sources emitted and which listeners they hold.
 */
import type { Client } from '@modelcontextprotocol/client';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  QuoteEventSchema,
  type CallReceipt,
  type ChannelDescriptor,
  type ContextData,
  type SnapshotData,
  type SubscriptionPoll,
  type SubscriptionSummary,
  type Target,
} from '../src/protocol/index.js';
import { pngSize } from '../src/bridge/extension/sw/visibleCrop.js';
import { quotesChannel, tradingEventsChannel, type ChannelDeclaration } from '../src/sdk/index.js';
import { diagnosticsTicksChannel } from '../demo/src/channels/diagnosticsChannel.js';
import { chartViewportChannel } from '../demo/src/chart/viewportChannel.js';
import type { DemoHooks } from '../demo/src/testHooks.js';
import {
  callTool,
  connectHttpClient,
  connectStdioClient,
  launchBrowser,
  newPage,
  pairPage,
  startServer,
  type ToolCall,
} from './harness/index.js';

type Transport = 'http' | 'stdio';
interface Observed {
  client: Client;
  page: Page;
  /** Page console errors and exceptions so far. */
  errors: string[];
  sessionId: string;
  call<T>(name: string, args: Record<string, unknown>): Promise<ToolCall<T>>;
}

const SESSION: Target = { scope: 'session' };
const MAIN: Target = { scope: 'chart', chartId: 'btc-main' };
const ALT: Target = { scope: 'chart', chartId: 'eth-alt' };
const TERMINAL: Target = { scope: 'widget', widgetId: 'terminal' };
const WIDGETS = ['watchlist', 'depth-ladder', 'order-ticket', 'blotter', 'alerts', 'risk', 'fx-quote', 'terminal'];
const DECLARATIONS: Record<string, ChannelDeclaration> = Object.fromEntries(
  [quotesChannel, tradingEventsChannel, chartViewportChannel, diagnosticsTicksChannel].map((c) => [c.channelId, c]),
);

let browser: Browser;
/** Runs `read` on the demo's hooks in the page (it may use nothing but its argument). */
const hooks =
  (page: Page) =>
  <T>(read: (demo: DemoHooks) => T): Promise<T> =>
    page.evaluate(`(${read.toString()})(window.__tradescriptDemo)`) as Promise<T>;

/** Starts the demo server, pairs a tab at `?diagnostics=1` and connects a client over `transport`. */
async function open(transport: Transport): Promise<Observed> {
  let client: Client;
  let pairUrl: string | undefined;
  if (transport === 'http') {
    const server = await startServer(['demo']);
    client = await connectHttpClient(server.ready.mcpUrl!);
    pairUrl = server.ready.pairUrl;
  } else {
    const handle = await connectStdioClient(['demo', '--stdio']);
    client = handle.client;
    pairUrl = handle.ready.pairUrl;
  }
  const url = new URL(pairUrl!);
  url.search = '?diagnostics=1';
  const { page, errors } = await newPage(browser);
  const sessionId = await pairPage(page, url.toString());
  return { client, page, errors, sessionId, call: (name, args) => callTool(client, name, args) };
}

async function until<T>(read: () => Promise<T>, done: (value: T) => boolean, ms = 10_000): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const value = await read();
    if (done(value) || Date.now() > end) return value;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** `tradescript_subscribe`'s data, or a thrown error with its code. */
async function subscribe<T>(t: Observed, args: Record<string, unknown>): Promise<T> {
  const { envelope } = await t.call<T>('tradescript_subscribe', args);
  if (envelope.error) throw new Error(`${envelope.error.code}: ${envelope.error.message}`);
  return envelope.data!;
}

const start = (t: Observed, target: Target, bindings: unknown[]) =>
  t.call<{ subscriptionId: string }>('tradescript_subscribe', {
    action: 'start',
    sessionId: t.sessionId,
    target,
    bindings,
  });
const poll = (t: Observed, subscriptionId: string, afterSequence?: number) =>
  subscribe<SubscriptionPoll>(t, {
    action: 'poll',
    subscriptionId,
    ...(afterSequence === undefined ? {} : { afterSequence }),
  });
const stop = (t: Observed, subscriptionId: string) =>
  subscribe<SubscriptionSummary>(t, { action: 'stop', subscriptionId });
const list = async (t: Observed) =>
  (await subscribe<{ subscriptions: SubscriptionSummary[] }>(t, { action: 'list' })).subscriptions;

async function snapshot(t: Observed, target: Target, extra: Record<string, unknown> = {}) {
  const result = await t.call<SnapshotData>('tradescript_snapshot', { sessionId: t.sessionId, target, ...extra });
  const image = result.result.content.find((item) => item.type === 'image') as
    { data: string; mimeType: string } | undefined;
  return { ...result, bytes: Buffer.from(image?.data ?? '', 'base64'), image };
}

function checkContract(descriptor: ChannelDescriptor): void {
  const declared = DECLARATIONS[descriptor.channelId];
  expect(declared, descriptor.channelId).toBeDefined();
  for (const [contract, schema] of [
    [descriptor.optionsContract, declared!.options],
    [descriptor.eventContract, declared!.event],
  ] as const) {
    expect(contract.signature.length).toBeGreaterThan(5);
    expect(z.fromJSONSchema(contract.schema as never).safeParse(contract.example).success, descriptor.channelId).toBe(
      true,
    );
    expect(z.safeParse(schema, contract.example).success, descriptor.channelId).toBe(true);
  }
}

beforeAll(async () => {
  browser = await launchBrowser();
});
afterAll(async () => {
  await browser?.close();
});

describe('SPEC §7 §8 subscriptions and snapshots over http', () => {
  let t: Observed;
  let demo: ReturnType<typeof hooks>;
  beforeAll(async () => {
    t = await open('http');
    demo = hooks(t.page);
  });

  it('SPEC §7 context lists each target’s channels with contracts whose examples match their published schemas', async () => {
    const read = async (target: Target) =>
      (await t.call<ContextData>('tradescript_get_context', { sessionId: t.sessionId, target })).envelope.data!;
    const session = await read(SESSION);
    expect(session.availableSubscriptions.map((c) => c.channelId)).toEqual([
      'data.quotes',
      'trading.events',
      'diagnostics.ticks',
    ]);
    const chart = await read(MAIN);
    expect(chart.availableSubscriptions.map((c) => c.channelId).sort()).toEqual(['chart.viewport', 'data.quotes']);
    for (const descriptor of [...session.availableSubscriptions, ...chart.availableSubscriptions])
      checkContract(descriptor);
    expect(session.availableTargets.filter((a) => a.renderable).map((a) => a.target)).toEqual(
      expect.arrayContaining([MAIN, ALT, ...WIDGETS.map((widgetId) => ({ scope: 'widget', widgetId }))]),
    );
  });

  it('SPEC §7 data.quotes with two bindings: events in order, strictly increasing sequences, each binding its own symbols', async () => {
    const listenersBefore = await demo((d) => d.listeners().market);
    const started = await start(t, SESSION, [
      { channelId: 'data.quotes', bindingId: 'btc', options: { symbols: ['BTCUSDT'] } },
      { channelId: 'data.quotes', bindingId: 'majors', options: { symbols: ['BINANCE:ETHUSDT', 'SOLUSDT'] } },
    ]);
    expect(started.isError).toBe(false);
    const { subscriptionId } = started.envelope.data!;
    expect(await demo((d) => d.listeners().market)).toBe(listenersBefore + 2);
    const first = await until(
      () => poll(t, subscriptionId),
      (p) => p.events.length >= 9,
    );
    const sequences = first.events.map((e) => e.sequence);
    expect(sequences[0]).toBe(1);
    expect(sequences.every((s, i) => i === 0 || s === sequences[i - 1]! + 1)).toBe(true);
    for (const event of first.events) {
      expect(event).toMatchObject({ target: SESSION, channelId: 'data.quotes' });
      expect(QuoteEventSchema.safeParse(event.payload).success).toBe(true);
      const symbol = (event.payload as { symbol: string }).symbol;
      expect(event.bindingId).toBe(symbol === 'BTCUSDT' ? 'btc' : 'majors');
      expect(['BTCUSDT', 'ETHUSDT', 'SOLUSDT']).toContain(symbol);
    }
    const next = await until(
      () => poll(t, subscriptionId, first.lastSequence),
      (p) => p.events.length > 0,
    );
    expect(next.events[0]!.sequence).toBe(first.lastSequence + 1);
    expect(next).toMatchObject({ droppedBeforeSequence: null, droppedCount: 0 });
    const stopped = await stop(t, subscriptionId);
    expect(stopped).toMatchObject({ status: 'stopped', reason: 'stopped' });
    expect(await stop(t, subscriptionId)).toEqual(stopped);
    expect(await demo((d) => d.listeners().market)).toBe(listenersBefore);
  });

  it('SPEC §7 evictions past 256 events: droppedBeforeSequence and droppedCount equal the true gap the page counted', async () => {
    const emittedBefore = await demo((d) => d.diagnostics!.emitted());
    const started = await start(t, SESSION, [
      { channelId: 'diagnostics.ticks', bindingId: 'load', options: { ratePerSecond: 20_000, maxEvents: 1_000 } },
    ]);
    const { subscriptionId } = started.envelope.data!;
    const done = await until(
      () => poll(t, subscriptionId, 990),
      (p) => p.lastSequence === 1_000,
    );
    const emitted = (await demo((d) => d.diagnostics!.emitted())) - emittedBefore;
    expect(emitted).toBe(1_000);
    expect(done.events.map((e) => (e.payload as { n: number }).n)).toEqual([
      991, 992, 993, 994, 995, 996, 997, 998, 999, 1000,
    ]);
    const oldest = await poll(t, subscriptionId);
    const gap = emitted - 256;
    expect(oldest).toMatchObject({ lastSequence: emitted, droppedBeforeSequence: gap + 1, droppedCount: gap });
    expect(oldest.events).toHaveLength(100);
    expect(oldest.events[0]).toMatchObject({ sequence: gap + 1, payload: { n: gap + 1 } });
    expect(await poll(t, subscriptionId, 10)).toMatchObject({ droppedBeforeSequence: gap + 1, droppedCount: gap - 10 });
    await stop(t, subscriptionId);
    expect(await demo((d) => d.diagnostics!.activeBindings())).toBe(0);
  });

  it('SPEC §7 a failed second binding rolls the first back: no listener, no subscription left behind', async () => {
    const before = await demo((d) => ({ market: d.listeners().market, sources: d.sources()['data.quotes@session']! }));
    const subscriptions = (await list(t)).length;
    const invalid = await start(t, SESSION, [
      { channelId: 'data.quotes', bindingId: 'ok', options: { symbols: ['BTCUSDT'] } },
      { channelId: 'data.quotes', bindingId: 'bad', options: { symbols: [] } },
    ]);
    expect(invalid.envelope.error).toMatchObject({ code: 'invalid_input' });
    expect(invalid.envelope.error!.validation_errors[0]!.path.slice(0, 3)).toEqual(['bindings', 1, 'options']);
    const unquoted = await start(t, SESSION, [
      { channelId: 'data.quotes', bindingId: 'ok', options: { symbols: ['BTCUSDT'] } },
      { channelId: 'data.quotes', bindingId: 'nope', options: { symbols: ['NOPEUSDT'] } },
    ]);
    expect(unquoted.envelope.error).toMatchObject({ code: 'control_failed' });
    const after = await demo((d) => ({ market: d.listeners().market, sources: d.sources()['data.quotes@session']! }));
    expect(after.market).toBe(before.market);
    expect(after.sources.subscribed - after.sources.released).toBe(before.sources.subscribed - before.sources.released);
    expect((await list(t)).length).toBe(subscriptions);
  });

  it('SPEC §7 chart.viewport tells the agent’s moves from the person’s, with the revision after each', async () => {
    const started = await start(t, MAIN, [{ channelId: 'chart.viewport', bindingId: 'view' }]);
    const { subscriptionId } = started.envelope.data!;
    const range = await t.call<CallReceipt>('tradescript_call', {
      sessionId: t.sessionId,
      target: MAIN,
      controlId: 'chart.getVisibleRange',
    });
    const shown = range.envelope.data!.result as { startTime: number; endTime: number };
    const viewport = (await demo((d) => d.charts['btc-main']!.revisions()))['viewport']!;
    const span = shown.endTime - shown.startTime;
    await t.call('tradescript_call', {
      sessionId: t.sessionId,
      target: MAIN,
      controlId: 'chart.setVisibleRange',
      args: [{ startTime: shown.startTime - span, endTime: shown.endTime - span }],
      expectedRevisions: { viewport },
    });
    const box = (await t.page.getByTestId('panel-chart-btc-main').locator('canvas').first().boundingBox())!;
    await t.page.mouse.move(box.x + box.width / 2, box.y + box.height / 2);
    await t.page.mouse.wheel(0, -300);
    const events = await until(
      () => poll(t, subscriptionId),
      (p) => p.events.length >= 2,
    );
    expect(events.events.map((e) => e.payload)).toEqual([
      expect.objectContaining({
        change: 'range',
        changedBy: 'agent',
        clientName: 'tradescript-e2e',
        revision: viewport + 1,
      }),
      expect.objectContaining({ change: 'range', changedBy: 'person', revision: viewport + 2 }),
    ]);
    await stop(t, subscriptionId);
  });

  it('SPEC §7 closing a chart leaves its subscription as a target-unregistered tombstone and releases its sources', async () => {
    const started = await start(t, ALT, [
      { channelId: 'chart.viewport', bindingId: 'view' },
      { channelId: 'data.quotes', bindingId: 'eth', options: { symbols: ['ETHUSDT'] } },
    ]);
    const { subscriptionId } = started.envelope.data!;
    await until(
      () => poll(t, subscriptionId),
      (p) => p.events.length > 0,
    );
    await t.page.getByTestId('chart-close-eth-alt').click();
    const tomb = await until(
      () => poll(t, subscriptionId),
      (p) => p.status === 'stopped',
    );
    expect(tomb).toMatchObject({ status: 'stopped', reason: 'target-unregistered', stoppedAt: expect.any(String) });
    expect((await list(t)).find((s) => s.subscriptionId === subscriptionId)).toMatchObject({
      status: 'stopped',
      reason: 'target-unregistered',
      target: ALT,
    });
    const counts = await demo((d) => ({ sources: d.sources(), viewport: d.listeners().viewport['eth-alt'] }));
    for (const key of ['chart.viewport@chart:eth-alt', 'data.quotes@chart:eth-alt']) {
      expect(counts.sources[key]!.released, key).toBe(counts.sources[key]!.subscribed);
    }
    expect(counts.viewport).toBe(0);
    expect(await stop(t, subscriptionId)).toMatchObject({ status: 'stopped', reason: 'target-unregistered' });
    const closed = await t.call('tradescript_subscribe', {
      action: 'start',
      sessionId: t.sessionId,
      target: ALT,
      bindings: [{ channelId: 'chart.viewport', bindingId: 'v' }],
    });
    expect(closed.envelope.error).toMatchObject({ code: 'target_not_found' });
    await t.page.getByTestId('chart-reopen-eth-alt').click();
    expect((await start(t, ALT, [{ channelId: 'chart.viewport', bindingId: 'v' }])).isError).toBe(false);
  });

  it('SPEC §6 the 33rd active subscription and the 33rd binding are limit_exceeded', async () => {
    for (const s of await list(t)) if (s.status === 'active') await stop(t, s.subscriptionId);
    const events = { channelId: 'trading.events', bindingId: 'e' };
    const ids: string[] = [];
    for (let i = 0; i < 32; i += 1) ids.push((await start(t, SESSION, [events])).envelope.data!.subscriptionId);
    const extra = await start(t, SESSION, [events]);
    expect(extra.envelope.error).toMatchObject({
      code: 'limit_exceeded',
      details: { limit: 'subscriptionsPerSession', max: 32 },
    });
    for (const id of ids) await stop(t, id);
    const many = await start(
      t,
      SESSION,
      Array.from({ length: 33 }, (_, i) => ({ ...events, bindingId: `e${i}` })),
    );
    expect(many.envelope.error).toMatchObject({
      code: 'limit_exceeded',
      details: { limit: 'bindingsPerSubscription', max: 32 },
    });
    expect(await demo((d) => d.listeners().brokerEvents)).toBe(0);
  });

  it('SPEC §8 a chart snapshot is a PNG of the stated size, and changes after chart.setVisibleRange', async () => {
    const before = await snapshot(t, MAIN);
    expect(before.isError).toBe(false);
    const data = before.envelope.data!;
    expect(data).toMatchObject({ mimeType: 'image/png', target: MAIN, byteLength: before.bytes.byteLength });
    expect(pngSize(before.bytes)).toEqual({ width: data.width, height: data.height });
    const viewport = (await demo((d) => d.charts['btc-main']!.revisions()))['viewport']!;
    const shown = await demo((d) => d.charts['btc-main']!.visibleRange());
    const moved = await t.call('tradescript_call', {
      sessionId: t.sessionId,
      target: MAIN,
      controlId: 'chart.setVisibleRange',
      args: [{ startTime: shown.startTime - 3_600, endTime: shown.endTime - 3_600 }],
      expectedRevisions: { viewport },
    });
    expect(moved.isError).toBe(false);
    await t.page.waitForTimeout(100);
    const after = await snapshot(t, MAIN);
    expect(pngSize(after.bytes)).toEqual({ width: data.width, height: data.height });
    expect(after.bytes.equals(before.bytes)).toBe(false);
  });

  it('SPEC §8 every widget renders; an oversized request is scaled; jpeg and webp; a session target is refused', async () => {
    for (const widgetId of WIDGETS) {
      const shot = await snapshot(t, { scope: 'widget', widgetId }, { maxWidth: 320 });
      expect(shot.isError, widgetId).toBe(false);
      expect(pngSize(shot.bytes)?.width, widgetId).toBeLessThanOrEqual(320);
    }
    const whole = await snapshot(t, TERMINAL, { maxWidth: 300 });
    expect(whole.envelope.data).toMatchObject({ scaled: true, mimeType: 'image/png' });
    expect(whole.envelope.data!.width).toBeLessThanOrEqual(300);
    expect(pngSize(whole.bytes)).toEqual({ width: whole.envelope.data!.width, height: whole.envelope.data!.height });
    const jpeg = await snapshot(t, MAIN, { format: 'jpeg' });
    expect(jpeg.envelope.data!.mimeType).toBe('image/jpeg');
    expect(jpeg.bytes.subarray(0, 3).toString('hex')).toBe('ffd8ff');
    const webp = await snapshot(t, { scope: 'widget', widgetId: 'blotter' }, { format: 'webp' });
    expect(webp.envelope.data!.mimeType).toBe('image/webp');
    expect(webp.bytes.subarray(8, 12).toString('latin1')).toBe('WEBP');
    const session = await snapshot(t, SESSION);
    expect(session.envelope.error).toMatchObject({ code: 'target_not_renderable' });
    expect(t.errors).toEqual([]);
  });
});

describe('SPEC §7 §8 one subscription and one snapshot over stdio', () => {
  it('polls data.quotes and captures the main chart as PNG', async () => {
    const t = await open('stdio');
    const started = await start(t, SESSION, [
      { channelId: 'data.quotes', bindingId: 'btc', options: { symbols: ['BTCUSDT'] } },
    ]);
    const { subscriptionId } = started.envelope.data!;
    const polled = await until(
      () => poll(t, subscriptionId),
      (p) => p.events.length >= 2,
    );
    expect(polled.events.map((e) => e.sequence)).toEqual(polled.events.map((_, i) => i + 1));
    expect(await stop(t, subscriptionId)).toMatchObject({ status: 'stopped' });
    const shot = await snapshot(t, MAIN);
    expect(pngSize(shot.bytes)).toEqual({ width: shot.envelope.data!.width, height: shot.envelope.data!.height });
    await t.client.close();
  });
});
