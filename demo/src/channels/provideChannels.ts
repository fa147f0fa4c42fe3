/**
 * Which channels the demo provides where (SPEC §7): `data.quotes` on the
 * session and on each chart, `trading.events` on the session, `chart.viewport`
 * on each chart (see chartSlot.ts), and `diagnostics.ticks` on the session
 * when the page runs with `?diagnostics=1`. Every source goes through the
 * meter, so tests can count subscribes and releases.
 */
import type { Target } from '../../../src/protocol/index.js';
import {
  quotesChannel,
  tradingEventsChannel,
  type ChannelDeclaration,
  type TerminalHost,
} from '../../../src/sdk/index.js';
import { diagnosticsTicksChannel, type DiagnosticTicks } from './diagnosticsChannel.js';
import { quotesSource, type QuoteFeed } from './quotesSource.js';
import type { SourceMeter } from './sourceMeter.js';
import { tradingEventsSource, type TradingEventFeed } from './tradingEventsSource.js';
import { chartViewportChannel } from '../chart/viewportChannel.js';

const SESSION: Target = { scope: 'session' };

/** The sources' inputs. */
export interface ChannelParts {
  market: QuoteFeed;
  events: TradingEventFeed;
  meter: SourceMeter;
  /** Present only with `?diagnostics=1`. */
  diagnostics: DiagnosticTicks | null;
}

/** The demo's own channels, declared up front so the catalog lists them before any chart opens. */
export function demoChannels(diagnostics: boolean): ChannelDeclaration[] {
  return diagnostics ? [chartViewportChannel, diagnosticsTicksChannel] : [chartViewportChannel];
}

/** `data.quotes` on one target. */
export function provideQuotes(host: TerminalHost, target: Target, parts: Pick<ChannelParts, 'market' | 'meter'>): void {
  host.provideChannel(target, quotesChannel, parts.meter.wrap(target, quotesChannel, quotesSource(parts.market)));
}

/** The session target's channels. */
export function provideSessionChannels(host: TerminalHost, parts: ChannelParts): void {
  const { meter } = parts;
  provideQuotes(host, SESSION, parts);
  const events = tradingEventsSource(parts.events);
  host.provideChannel(SESSION, tradingEventsChannel, meter.wrap(SESSION, tradingEventsChannel, events));
  if (parts.diagnostics) {
    const ticks = parts.diagnostics.source();
    host.provideChannel(SESSION, diagnosticsTicksChannel, meter.wrap(SESSION, diagnosticsTicksChannel, ticks));
  }
}

/** True when the page asked for the diagnostics channel (`?diagnostics=1`). */
export function diagnosticsRequested(search: string): boolean {
  return new URLSearchParams(search).get('diagnostics') === '1';
}
