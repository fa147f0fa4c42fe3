import { describe, expect, it } from 'vitest';
import { ContextDataSchema, type Target } from '../../protocol/index.js';
import { createTerminalHost } from '../host.js';
import { CountingSource, binding, drawingsChannel, recordingSink } from '../testing/channelFixtures.js';
import { dataOf, errorOf } from '../testing/expect.js';
import { CHART, SESSION, request } from '../testing/fixtures.js';
import type { BindingStart } from '../types.js';
import { quotesChannel, tradingEventsChannel } from './builtins.js';

const WIDGET: Target = { scope: 'widget', widgetId: 'blotter' };
const QUOTE = { symbol: 'BTCUSDT', bid: '1.0', ask: '1.5', last: '1.25', time: '2026-01-01T00:00:00Z' };

function host() {
  const h = createTerminalHost({ environment: 'paper', grant: 'trade', channels: [drawingsChannel] });
  const chart = h.registerTarget(CHART, { label: 'chart' });
  const quotes = new CountingSource();
  const drawings = new CountingSource();
  const trading = new CountingSource();
  h.provideChannel(SESSION, quotesChannel, quotes);
  h.provideChannel(SESSION, tradingEventsChannel, trading);
  h.provideChannel(CHART, quotesChannel, quotes);
  h.provideChannel(CHART, drawingsChannel, drawings);
  return { host: h, chart, quotes, drawings, trading };
}

function errorOfStart(start: BindingStart) {
  if (start.ok) throw new Error('expected the binding start to fail');
  return start.error;
}

describe('SPEC §7 binding starts', () => {
  it('invalid options are invalid_input at ["bindings", i, "options", …] and the source is never touched', async () => {
    const { host: h, quotes } = host();
    const { sink, events } = recordingSink();
    const bad = binding('data.quotes', SESSION, { options: { symbols: [] }, bindingIndex: 2 });
    const error = errorOfStart(await h.startBinding(bad, sink));
    expect(error.code).toBe('invalid_input');
    expect(error.validation_errors[0]?.path).toEqual(['bindings', 2, 'options', 'symbols']);
    const missing = errorOfStart(await h.startBinding(binding('data.quotes', SESSION, { bindingIndex: 1 }), sink));
    expect(missing.validation_errors[0]?.path).toEqual(['bindings', 1, 'options']);
    const unknown = binding('data.quotes', SESSION, { options: { symbols: ['A'], depth: 5 } });
    expect(errorOfStart(await h.startBinding(unknown, sink)).code).toBe('invalid_input');
    expect(JSON.stringify(error)).not.toContain('depth');
    expect(quotes.subscribeCalls).toBe(0);
    expect(events).toEqual([]);
  });

  it('optional options may be omitted: the source receives undefined; given ones arrive parsed', async () => {
    const { host: h, trading } = host();
    const { sink } = recordingSink();
    expect(await h.startBinding(binding('trading.events', SESSION), sink)).toEqual({ ok: true });
    const scoped = binding('trading.events', SESSION, { options: { accountIds: ['PAPER-1'] } });
    expect(await h.startBinding(scoped, sink)).toEqual({ ok: true });
    expect(trading.options).toEqual([undefined, { accountIds: ['PAPER-1'] }]);
  });

  it('routing: an unknown target is target_not_found; a channel not provided there is control_unavailable (not-mounted)', async () => {
    const { host: h, quotes } = host();
    const { sink } = recordingSink();
    const options = { symbols: ['A'] };
    expect(errorOfStart(await h.startBinding(binding('data.quotes', WIDGET, { options }), sink)).code).toBe(
      'target_not_found',
    );
    const notHere = errorOfStart(await h.startBinding(binding('trading.events', CHART), sink));
    expect(notHere).toMatchObject({ code: 'control_unavailable', details: { reason: 'not-mounted' } });
    const unknown = errorOfStart(await h.startBinding(binding('data.nope', SESSION), sink));
    expect(unknown).toMatchObject({ code: 'control_unavailable', details: { reason: 'not-mounted' } });
    expect(quotes.subscribeCalls).toBe(0);
  });

  it('a binding id already live in the subscription is invalid_input; a source that throws is control_failed', async () => {
    const { host: h, quotes } = host();
    const { sink } = recordingSink();
    const first = binding('data.quotes', SESSION, { options: { symbols: ['A'] }, bindingId: 'same' });
    expect(await h.startBinding(first, sink)).toEqual({ ok: true });
    const again = errorOfStart(await h.startBinding({ ...first, bindingIndex: 3 }, sink));
    expect(again.validation_errors[0]?.path).toEqual(['bindings', 3, 'bindingId']);
    expect(quotes.subscribeCalls).toBe(1);
    h.provideChannel(WIDGET_TARGET(h), tradingEventsChannel, {
      subscribe: () => {
        throw new Error('feed offline');
      },
    });
    const failed = errorOfStart(await h.startBinding(binding('trading.events', WIDGET), sink));
    expect(failed.code).toBe('control_failed');
    expect(failed.message).not.toContain('offline');
  });
});

function WIDGET_TARGET(h: ReturnType<typeof host>['host']): Target {
  h.registerTarget(WIDGET, { label: 'blotter' });
  return WIDGET;
}

describe('SPEC §7 binding lifecycle', () => {
  it('several bindings may share one channel; each receives every event under its own id', async () => {
    const { host: h, quotes } = host();
    const { sink, events } = recordingSink();
    await h.startBinding(binding('data.quotes', SESSION, { bindingId: 'l1', options: { symbols: ['A'] } }), sink);
    await h.startBinding(binding('data.quotes', SESSION, { bindingId: 'l2', options: { symbols: ['B'] } }), sink);
    quotes.emit(QUOTE);
    expect(quotes.subscribeCalls).toBe(2);
    expect(events).toEqual([
      { bindingId: 'l1', payload: QUOTE },
      { bindingId: 'l2', payload: QUOTE },
    ]);
  });

  it('stopBinding releases the source exactly once and nothing reaches the sink afterwards', async () => {
    const { host: h, quotes } = host();
    const { sink, events } = recordingSink();
    await h.startBinding(binding('data.quotes', SESSION, { bindingId: 'x', options: { symbols: ['A'] } }), sink);
    h.stopBinding('sub-1', 'x');
    h.stopBinding('sub-1', 'x');
    h.stopBinding('sub-unknown', 'x');
    quotes.emit(QUOTE);
    expect(quotes.unsubscribeCalls).toBe(1);
    expect(events).toEqual([]);
    expect(
      await h.startBinding(binding('data.quotes', SESSION, { bindingId: 'x', options: { symbols: ['A'] } }), sink),
    ).toEqual({ ok: true });
  });

  it('unregistering a target releases its listeners at once, then notifies, exactly once', async () => {
    const { host: h, chart, quotes, drawings } = host();
    const { sink, events } = recordingSink();
    await h.startBinding(binding('data.quotes', CHART, { options: { symbols: ['A'] } }), sink);
    await h.startBinding(binding('chart.drawings', CHART, { options: { kinds: ['line'] } }), sink);
    await h.startBinding(binding('data.quotes', SESSION, { options: { symbols: ['A'] } }), sink);
    const notices: Array<{ target: Target; released: number }> = [];
    h.onTargetUnregistered((target) =>
      notices.push({ target, released: quotes.unsubscribeCalls + drawings.unsubscribeCalls }),
    );
    chart.unregister();
    expect(notices).toEqual([{ target: CHART, released: 2 }]);
    chart.unregister();
    expect(notices).toHaveLength(1);
    quotes.emit(QUOTE);
    expect(events).toEqual([{ bindingId: expect.any(String), payload: QUOTE }]);
    h.stopBinding('sub-1', (events[0] as { bindingId: string }).bindingId);
    expect(quotes.unsubscribeCalls + drawings.unsubscribeCalls).toBe(3);
  });

  it('invalid and oversized projections become drop markers; payloads are redacted plain JSON', async () => {
    const { host: h, trading, drawings } = host();
    const { sink, events } = recordingSink();
    await h.startBinding(binding('trading.events', SESSION, { bindingId: 't' }), sink);
    await h.startBinding(binding('chart.drawings', CHART, { bindingId: 'd', options: { kinds: ['box'] } }), sink);
    trading.emit({ type: 'order.rejected', time: 't1', message: '   ' });
    trading.emit({ type: 'order.teleported', time: 't2' });
    trading.emit({ type: 'order.filled', time: 't3', note: 'extra key' });
    drawings.emit({ action: 'added', id: 'd1', label: 'many tags', tags: Array(40).fill('tag '.repeat(125)) });
    drawings.emit({ action: 'added', id: 'd2', label: '  two   words ' });
    expect(events).toEqual([
      { bindingId: 't', payload: { type: 'order.rejected', time: 't1', message: null } },
      { bindingId: 't', dropped: 'invalid' },
      { bindingId: 't', dropped: 'invalid' },
      { bindingId: 'd', dropped: 'oversized' },
      { bindingId: 'd', payload: { action: 'added', id: 'd2', label: 'two words' } },
    ]);
  });

  it('a limit lowered by the relay applies to payloads (jsonDepth, stringLength)', async () => {
    const { host: h, quotes } = host();
    const { sink, events } = recordingSink();
    const limits = { jsonDepth: 24, stringLength: 8 };
    await h.startBinding(
      binding('data.quotes', SESSION, { bindingId: 'q', options: { symbols: ['A'] }, limits }),
      sink,
    );
    quotes.emit({ ...QUOTE, symbol: 'LONG-SYMBOL' });
    quotes.emit({ ...QUOTE, time: 't' });
    expect(events).toEqual([
      { bindingId: 'q', dropped: 'oversized' },
      { bindingId: 'q', payload: { ...QUOTE, time: 't' } },
    ]);
  });
});

describe('SPEC §7 channels in context and catalog', () => {
  it('availableSubscriptions lists what is provided on the target and allowed by its surface policy', async () => {
    const h = createTerminalHost({ environment: 'paper' });
    h.registerTarget(CHART, { label: 'chart', surfacePolicy: { denyChannels: ['trading.*'] } });
    h.provideChannel(CHART, quotesChannel, new CountingSource());
    h.provideChannel(CHART, tradingEventsChannel, new CountingSource());
    const context = ContextDataSchema.parse(dataOf(await h.handle(request({ kind: 'context', target: CHART }))));
    expect(context.availableSubscriptions.map((c) => c.channelId)).toEqual(['data.quotes']);
    expect(context.capabilities.channels).toEqual(['data.quotes']);
    const session = ContextDataSchema.parse(dataOf(await h.handle(request({ kind: 'context', target: SESSION }))));
    expect(session.availableSubscriptions).toEqual([]);
    const { sink } = recordingSink();
    const denied = errorOfStart(await h.startBinding(binding('trading.events', CHART), sink));
    expect(denied).toMatchObject({ code: 'control_unavailable', details: { reason: 'surface-policy' } });
    expect(errorOf(await h.handle(request({ kind: 'context', target: WIDGET }))).code).toBe('target_not_found');
  });

  it('provideChannel refuses an unregistered target, a scope the channel lacks, and a second source', () => {
    const h = createTerminalHost({ environment: 'paper' });
    expect(() => h.provideChannel(CHART, quotesChannel, new CountingSource())).toThrow(/not registered/);
    expect(() => h.provideChannel(SESSION, drawingsChannel, new CountingSource())).toThrow(/session target/);
    h.provideChannel(SESSION, quotesChannel, new CountingSource());
    expect(() => h.provideChannel(SESSION, quotesChannel, new CountingSource())).toThrow(/already provided/);
    expect(h.catalog().channels.map((c) => c.channelId)).toEqual(['data.quotes', 'trading.events']);
    h.registerTarget(CHART, { label: 'chart' });
    h.provideChannel(CHART, drawingsChannel, new CountingSource());
    expect(h.catalog().channels.map((c) => c.channelId)).toContain('chart.drawings');
  });
});
