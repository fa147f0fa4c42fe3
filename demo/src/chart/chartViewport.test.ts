import { describe, expect, it } from 'vitest';
import { DEFAULT_LIMITS, relayLimitsOf, type CallReceipt } from '../../../src/protocol/index.js';
import { TradingLineStore } from './tradingLines.js';
import { bind, testHost } from '../testing/channelTesting.js';
import { chartViewportChannel, ViewportFeed } from './viewportChannel.js';
import type { Interval } from '../market/candles.js';
import { chartController } from './chartController.js';
import { chartControls } from './chartControls.js';
import type { ChartModel, TimeRange } from './chartModel.js';
import { announcingControls, viewportEvent } from './chartViewport.js';

const CHART = { scope: 'chart', chartId: 'btc-main' } as const;
const LIMITS = relayLimitsOf(DEFAULT_LIMITS);

/** A chart without a DOM that shows exactly what it was given. */
class FakeChart implements ChartModel {
  readonly chartId = 'btc-main';
  readonly lines = new TradingLineStore(this.chartId, { draw: () => undefined, erase: () => undefined });
  private range: TimeRange = { from: 1_000, to: 2_000 };
  private sym = 'BTCUSDT';
  private iv: Interval = '1m';
  symbol = (): string => this.sym;
  interval = (): Interval => this.iv;
  visibleRange = (): TimeRange => ({ ...this.range });
  dataRange = (): TimeRange => ({ from: 0, to: 10_000 });
  newestTime = (): number => 10_000;
  applyVisibleRange = (range: TimeRange): TimeRange => (this.range = { ...range });
  setSymbol = (symbol: string): void => void (this.sym = symbol);
  setInterval = (interval: Interval): void => void (this.iv = interval);
  lastPrice = (): string => '67250.10';
}

function setup() {
  const host = testHost([chartViewportChannel]);
  const chart = new FakeChart();
  const feed = new ViewportFeed();
  host.registerTarget(CHART, { label: 'Main chart' });
  const controls = announcingControls(
    chartControls(chart, () => ['BTCUSDT', 'ETHUSDT']),
    chart,
    feed,
  );
  const mounted = host.mount(CHART, chartController, controls);
  host.provideChannel(CHART, chartViewportChannel, feed.source());
  let n = 0;
  const call = (controlId: string, args: unknown[], viewport: number) =>
    host.handle({
      id: `r${++n}`,
      sessionId: 's1',
      attachment: { attachmentId: 'a1', namespace: 'ns1', clientName: 'Claude Code' },
      adapter: { maxAccess: 'write', allowControls: null },
      limits: LIMITS,
      deadlineMs: 30_000,
      op: {
        kind: 'call',
        call: {
          target: CHART,
          controlId,
          args,
          expectedRevisions: { viewport },
          operationId: `op${n}`,
          callerOperationId: false,
        },
      },
    });
  return { host, chart, feed, mounted, call };
}

describe('chart.viewport, the demo’s own channel (SPEC §7 custom channels)', () => {
  it('announces an agent’s range, symbol and interval changes with its client name and the revision after each', async () => {
    const { host, call, feed } = setup();
    const binding = await bind(host, CHART, 'chart.viewport');
    expect(binding.started).toEqual({ ok: true });
    const moved = await call('chart.setVisibleRange', [{ startTime: 3_000, endTime: 4_000 }], 0);
    expect(moved.ok && (moved.data as CallReceipt).revisionsAfter).toEqual({ viewport: 1 });
    await call('chart.setSymbol', ['ETHUSDT'], 1);
    await call('chart.setInterval', ['5m'], 2);
    expect(binding.payloads()).toEqual([
      expect.objectContaining({
        change: 'range',
        changedBy: 'agent',
        clientName: 'Claude Code',
        startTime: 3_000,
        endTime: 4_000,
        revision: 1,
      }),
      expect.objectContaining({ change: 'symbol', symbol: 'ETHUSDT', revision: 2 }),
      expect.objectContaining({ change: 'interval', interval: '5m', revision: 3 }),
    ]);
    for (const payload of binding.payloads()) expect(chartViewportChannel.event.safeParse(payload).success).toBe(true);
    binding.stop();
    expect(feed.listenerCount()).toBe(0);
  });

  it('filters by who changed it, and a failed control announces nothing', async () => {
    const { host, call, chart, feed, mounted } = setup();
    const person = await bind(host, CHART, 'chart.viewport', { changedBy: ['person'] });
    await call('chart.setSymbol', ['NOPE'], 0);
    await call('chart.setVisibleRange', [{ startTime: 3_000, endTime: 4_000 }], 0);
    feed.publish(viewportEvent(chart, 'range', mounted.revisions.bump('viewport'), null));
    expect(person.payloads()).toEqual([expect.objectContaining({ changedBy: 'person', revision: 2 })]);
    expect(person.payloads()[0]).not.toHaveProperty('clientName');
  });

  it('publishes an example that matches its own schemas', () => {
    expect(chartViewportChannel.options.safeParse(chartViewportChannel.optionsExample).success).toBe(true);
    expect(chartViewportChannel.event.safeParse(chartViewportChannel.eventExample).success).toBe(true);
  });
});
