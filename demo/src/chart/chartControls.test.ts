import { describe, expect, it } from 'vitest';
import { describeController } from '../../../src/sdk/declare/declare.js';
import { isControlFailure } from '../../../src/sdk/outcomes/failures.js';
import type { ControlContext, RevisionHandle } from '../../../src/sdk/types.js';
import { TradingLineStore, type TradingLine } from './tradingLines.js';
import type { Interval } from '../market/candles.js';
import { chartController, PriceSchema, TimeRangeSchema, TradingLinePatchSchema } from './chartController.js';
import { chartControls } from './chartControls.js';
import type { ChartModel, TimeRange } from './chartModel.js';

/** A chart without a DOM: it shows exactly the range it was given. */
class FakeChart implements ChartModel {
  readonly chartId = 'btc-main';
  readonly drawn = new Map<string, TradingLine>();
  readonly lines = new TradingLineStore(
    this.chartId,
    { draw: (line) => this.drawn.set(line.lineId, line), erase: (id) => this.drawn.delete(id) },
    () => new Date('2026-01-05T12:00:00Z'),
  );
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

function revisionCounters(): RevisionHandle {
  const values = new Map<string, number>(chartController.revisionDomains.map((d) => [d, 0]));
  return {
    get: (domain) => values.get(domain) ?? 0,
    bump: (domain) => {
      const next = (values.get(domain) ?? 0) + 1;
      values.set(domain, next);
      return next;
    },
    all: () => Object.fromEntries(values),
  };
}

function setup() {
  const chart = new FakeChart();
  const revisions = revisionCounters();
  const ctx: ControlContext = {
    target: { scope: 'chart', chartId: chart.chartId },
    controlId: 'chart.test',
    operationId: 'op-1',
    attachment: { attachmentId: 'a1', namespace: 'ns1', clientName: 'test' },
    signal: new AbortController().signal,
    revisions,
  };
  const controls = chartControls(chart, () => ['BTCUSDT', 'ETHUSDT']);
  return { chart, revisions, ctx, controls };
}

function failureOf(run: () => unknown): { kind: string; message: string } {
  try {
    run();
  } catch (error) {
    if (isControlFailure(error)) return { kind: error.kind, message: error.message };
    throw error;
  }
  throw new Error('expected a control failure');
}

describe('chart controller declaration (SPEC §5)', () => {
  it('derives descriptors with access classes, families and revision domains', () => {
    const byId = new Map(describeController(chartController).map((d) => [d.controlId, d]));
    expect([...byId.keys()]).toEqual([
      'chart.getVisibleRange',
      'chart.setVisibleRange',
      'chart.setSymbol',
      'chart.setInterval',
      'chart.createTradingLine',
      'chart.getTradingLine',
      'chart.listTradingLines',
      'chart.updateTradingLine',
      'chart.removeTradingLine',
    ]);
    expect(byId.get('chart.setVisibleRange')).toMatchObject({
      accessClass: 'write',
      mutation: true,
      family: 'chart.viewport',
      permission: 'chart.write',
      revisionDomains: ['viewport'],
    });
    expect(byId.get('chart.getTradingLine')).toMatchObject({
      accessClass: 'read',
      mutation: false,
      revisionDomains: [],
    });
    expect(byId.get('chart.removeTradingLine')?.revisionDomains).toEqual(['tradingLines']);
    expect(byId.get('chart.setVisibleRange')?.signature).toContain('range: { startTime: number; endTime: number }');
  });

  it('validates arguments: startTime before endTime, unknown fields rejected, positive decimal prices', () => {
    expect(TimeRangeSchema.safeParse({ startTime: 10, endTime: 20 }).success).toBe(true);
    expect(TimeRangeSchema.safeParse({ startTime: 20, endTime: 20 }).success).toBe(false);
    expect(TimeRangeSchema.safeParse({ startTime: 1.5, endTime: 20 }).success).toBe(false);
    expect(TimeRangeSchema.safeParse({ startTime: 10, endTime: 20, zoom: 2 }).success).toBe(false);
    // SPEC §10: the seed's vocabulary only; the demo's former {from, to} is refused, not guessed at.
    expect(TimeRangeSchema.safeParse({ from: 10, to: 20 }).success).toBe(false);
    expect(PriceSchema.safeParse('67250.5').success).toBe(true);
    for (const bad of ['0', '-1', '1e5', '67,250', '']) expect(PriceSchema.safeParse(bad).success).toBe(false);
    expect(TradingLinePatchSchema.safeParse({}).success).toBe(false);
    expect(TradingLinePatchSchema.safeParse({ label: 'TP' }).success).toBe(true);
  });
});

describe('chart controls', () => {
  it('setVisibleRange applies the range, bumps viewport once and returns what the chart shows', () => {
    const { chart, revisions, ctx, controls } = setup();
    const result = controls.setVisibleRange(ctx, { startTime: 3_000, endTime: 4_000 });
    expect(result).toEqual({ symbol: 'BTCUSDT', interval: '1m', startTime: 3_000, endTime: 4_000 });
    expect(chart.visibleRange()).toEqual({ from: 3_000, to: 4_000 });
    expect(revisions.all()).toEqual({ viewport: 1, drawings: 0, tradingLines: 0 });
  });

  it('refuses a range that starts after the newest bar as a definite failure and changes nothing', () => {
    const { chart, revisions, ctx, controls } = setup();
    const failure = failureOf(() => controls.setVisibleRange(ctx, { startTime: 20_000, endTime: 30_000 }));
    expect(failure.kind).toBe('definite-failure');
    expect(chart.visibleRange()).toEqual({ from: 1_000, to: 2_000 });
    expect(revisions.get('viewport')).toBe(0);
  });

  it('setSymbol refuses an unknown symbol with a definite failure naming the choices', () => {
    const { chart, revisions, ctx, controls } = setup();
    const failure = failureOf(() => controls.setSymbol(ctx, 'NOPEUSDT'));
    expect(failure.kind).toBe('definite-failure');
    expect(failure.message).toContain('BTCUSDT, ETHUSDT');
    expect(failure.message).not.toContain('NOPEUSDT');
    expect(chart.symbol()).toBe('BTCUSDT');
    expect(revisions.get('viewport')).toBe(0);
    expect(controls.setSymbol(ctx, 'ETHUSDT')).toMatchObject({ symbol: 'ETHUSDT' });
    expect(controls.setInterval(ctx, '1h')).toMatchObject({ symbol: 'ETHUSDT', interval: '1h' });
    expect(revisions.get('viewport')).toBe(2);
  });

  it('creates, reads, lists, updates and removes trading lines, bumping tradingLines on each change', () => {
    const { chart, revisions, ctx, controls } = setup();
    const line = controls.createTradingLine(ctx, { kind: 'alert', price: '68000' });
    expect(line).toMatchObject({
      lineId: 'line-1',
      chartId: 'btc-main',
      kind: 'alert',
      label: 'alert',
      color: '#f59e0b',
    });
    expect(chart.drawn.get('line-1')?.price).toBe('68000');
    expect(controls.getTradingLine(ctx, 'line-1')).toEqual(line);
    const moved = controls.updateTradingLine(ctx, 'line-1', { price: '68100.5', label: 'Breakout' });
    expect(moved).toMatchObject({ price: '68100.5', label: 'Breakout', kind: 'alert' });
    expect(controls.listTradingLines(ctx)).toEqual({ lines: [moved] });
    expect(controls.removeTradingLine(ctx, 'line-1')).toEqual({ lineId: 'line-1', removed: true });
    expect(chart.drawn.size).toBe(0);
    expect(revisions.get('tradingLines')).toBe(3);
    expect(revisions.get('viewport')).toBe(0);
  });

  it('reports a missing line as not-found on reads and as a definite failure on mutations', () => {
    const { revisions, ctx, controls } = setup();
    expect(failureOf(() => controls.getTradingLine(ctx, 'line-9')).kind).toBe('not-found');
    expect(failureOf(() => controls.updateTradingLine(ctx, 'line-9', { label: 'x' })).kind).toBe('definite-failure');
    expect(failureOf(() => controls.removeTradingLine(ctx, 'line-9')).kind).toBe('definite-failure');
    expect(revisions.get('tradingLines')).toBe(0);
  });

  it('refuses a 51st line without a bump', async () => {
    const { revisions, ctx, controls } = setup();
    for (let i = 0; i < 50; i++) await controls.createTradingLine(ctx, { kind: 'order', price: `${100 + i}` });
    expect(failureOf(() => controls.createTradingLine(ctx, { kind: 'order', price: '1' })).kind).toBe(
      'definite-failure',
    );
    expect(revisions.get('tradingLines')).toBe(50);
  });
});
