import { describe, expect, it } from 'vitest';
import type { TradingEvent } from '../../../src/protocol/index.js';
import { quotesChannel, tradingEventsChannel } from '../../../src/sdk/index.js';
import { BrokerEvents } from '../broker/events.js';
import { MarketSimulator } from '../market/simulator.js';
import { bind, testHost } from '../testing/channelTesting.js';
import { demoChannels, provideSessionChannels } from './provideChannels.js';
import { SourceMeter } from './sourceMeter.js';

const SESSION = { scope: 'session' } as const;

function setup() {
  let now = Date.UTC(2026, 0, 5, 12);
  const market = new MarketSimulator({ seed: 7, now: () => now, historyMinutes: 60 });
  const events = new BrokerEvents();
  const meter = new SourceMeter();
  const host = testHost(demoChannels(false));
  provideSessionChannels(host, { market, events, meter, diagnostics: null });
  const tick = (): void => {
    now += 500;
    market.advance();
  };
  return { market, events, meter, host, tick };
}

const filled = (accountId: string): TradingEvent => ({
  type: 'order.filled',
  time: '2026-01-05T12:00:01.000Z',
  accountId,
  orderId: 'o-1',
  symbol: 'BTCUSDT',
  side: 'buy',
  quantity: '0.01',
  price: '67250.00',
  status: 'filled',
});

describe('SPEC §7 data.quotes on the session (the simulated market)', () => {
  it('delivers quotes of the named symbols only (an exchange prefix is optional) and releases its listener on stop', async () => {
    const { market, host, tick, meter } = setup();
    const before = market.listenerCount();
    const binding = await bind(host, SESSION, 'data.quotes', { symbols: ['BTCUSDT', 'BINANCE:ETHUSDT'] });
    expect(binding.started).toEqual({ ok: true });
    expect(market.listenerCount()).toBe(before + 1);
    tick();
    tick();
    const symbols = binding.payloads().map((p) => (p as { symbol: string }).symbol);
    expect(symbols).toEqual(['BTCUSDT', 'ETHUSDT', 'BTCUSDT', 'ETHUSDT']);
    expect(quotesChannel.event.safeParse(binding.payloads()[0]).success).toBe(true);
    binding.stop();
    binding.stop();
    expect(market.listenerCount()).toBe(before);
    expect(meter.snapshot()['data.quotes@session']).toEqual({ subscribed: 1, released: 1 });
    tick();
    expect(binding.payloads()).toHaveLength(4);
  });

  it('refuses a symbol the market does not quote, leaving nothing bound', async () => {
    const { market, host } = setup();
    const before = market.listenerCount();
    const binding = await bind(host, SESSION, 'data.quotes', { symbols: ['BTCUSDT', 'NOPEUSDT'] });
    expect(binding.started).toMatchObject({ ok: false, error: { code: 'control_failed' } });
    expect(market.listenerCount()).toBe(before);
  });

  it('refuses invalid options before the source is touched', async () => {
    const { host, meter } = setup();
    const binding = await bind(host, SESSION, 'data.quotes', { symbols: [] });
    expect(binding.started).toMatchObject({ ok: false, error: { code: 'invalid_input' } });
    expect(meter.snapshot()['data.quotes@session']).toEqual({ subscribed: 0, released: 0 });
  });
});

describe('SPEC §7 trading.events on the session (the paper broker)', () => {
  it('passes every broker event, or only those of the named accounts, and releases its listener', async () => {
    const { events, host } = setup();
    const all = await bind(host, SESSION, 'trading.events');
    const one = await bind(host, SESSION, 'trading.events', { accountIds: ['PAPER-002'] });
    expect(events.listenerCount()).toBe(2);
    events.emit(filled('PAPER-001'));
    events.emit(filled('PAPER-002'));
    expect(all.payloads().map((p) => (p as TradingEvent).accountId)).toEqual(['PAPER-001', 'PAPER-002']);
    expect(one.payloads()).toEqual([filled('PAPER-002')]);
    expect(tradingEventsChannel.event.safeParse(one.payloads()[0]).success).toBe(true);
    all.stop();
    one.stop();
    expect(events.listenerCount()).toBe(0);
  });

  it('lists both built-ins in the session context with examples that match their schemas', async () => {
    const { host } = setup();
    const ids = host.catalog().channels.map((c) => c.channelId);
    expect(ids).toEqual(expect.arrayContaining(['data.quotes', 'trading.events', 'chart.viewport']));
    expect(ids).not.toContain('diagnostics.ticks');
    for (const channel of [quotesChannel, tradingEventsChannel]) {
      expect(channel.options.safeParse(channel.optionsExample).success).toBe(true);
      expect(channel.event.safeParse(channel.eventExample).success).toBe(true);
    }
  });
});
