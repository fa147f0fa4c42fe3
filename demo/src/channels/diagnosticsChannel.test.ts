import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { BrokerEvents } from '../broker/events.js';
import { MarketSimulator } from '../market/simulator.js';
import { bind, testHost } from '../testing/channelTesting.js';
import { diagnosticsTicksChannel, DiagnosticTicks, MAX_RATE } from './diagnosticsChannel.js';
import { demoChannels, diagnosticsRequested, provideSessionChannels } from './provideChannels.js';
import { SourceMeter } from './sourceMeter.js';

const SESSION = { scope: 'session' } as const;

function setup() {
  const ticks = new DiagnosticTicks(() => Date.now());
  const host = testHost(demoChannels(true));
  const market = new MarketSimulator({ seed: 7, historyMinutes: 10 });
  provideSessionChannels(host, { market, events: new BrokerEvents(), meter: new SourceMeter(), diagnostics: ticks });
  return { ticks, host };
}

beforeEach(() => {
  vi.useFakeTimers({ now: Date.UTC(2026, 0, 5, 12) });
});
afterEach(() => {
  vi.useRealTimers();
});

describe('SPEC §12 diagnostics.ticks, the synthetic load source', () => {
  it('emits at the asked rate in batches, numbered from 1, and counts every event exactly', async () => {
    const { ticks, host } = setup();
    const binding = await bind(host, SESSION, 'diagnostics.ticks', { ratePerSecond: 2_000 });
    expect(binding.started).toEqual({ ok: true });
    vi.advanceTimersByTime(1_000);
    const payloads = binding.payloads() as Array<{ n: number }>;
    expect(payloads.length).toBeGreaterThanOrEqual(1_980);
    expect(payloads.length).toBeLessThanOrEqual(2_000);
    expect(payloads.map((p) => p.n)).toEqual(Array.from({ length: payloads.length }, (_, i) => i + 1));
    expect(ticks.emitted()).toBe(payloads.length);
    binding.stop();
    expect(ticks.activeBindings()).toBe(0);
    vi.advanceTimersByTime(1_000);
    expect(ticks.emitted()).toBe(payloads.length);
  });

  it('stops by itself after maxEvents, and pads each event to payloadBytes in strings of at most 1,000 characters', async () => {
    const { ticks, host } = setup();
    const binding = await bind(host, SESSION, 'diagnostics.ticks', {
      ratePerSecond: 50_000,
      payloadBytes: 2_500,
      maxEvents: 300,
    });
    vi.advanceTimersByTime(1_000);
    expect(ticks.emitted()).toBe(300);
    expect(ticks.activeBindings()).toBe(0);
    const first = binding.payloads()[0] as { pad: string[] };
    expect(first.pad.map((s) => s.length)).toEqual([1000, 1000, 500]);
    binding.stop();
  });

  it('refuses a rate outside 1..200000 before anything emits', async () => {
    const { ticks, host } = setup();
    const binding = await bind(host, SESSION, 'diagnostics.ticks', { ratePerSecond: MAX_RATE + 1 });
    expect(binding.started).toMatchObject({ ok: false, error: { code: 'invalid_input' } });
    expect(ticks.activeBindings()).toBe(0);
  });

  it('is declared and provided only when the page asks with ?diagnostics=1', () => {
    expect(diagnosticsRequested('?diagnostics=1&seed=3')).toBe(true);
    expect(diagnosticsRequested('?seed=3')).toBe(false);
    expect(demoChannels(false)).not.toContain(diagnosticsTicksChannel);
  });
});
