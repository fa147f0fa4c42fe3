/**
 * Read-only hooks for end-to-end tests. Playwright reads what the page shows
 * through `window.__tradescriptDemo` instead of scraping canvases:
 *
 *   await page.waitForFunction(() => window.__tradescriptDemo?.bridgeStatus().state === 'paired');
 *   const range = await page.evaluate(() => window.__tradescriptDemo!.charts['btc-main']!.visibleRange());
 *   await page.evaluate(() => window.__tradescriptDemo!.broker.faults.set('lostResponse:orders.placeOrder:1'));
 *
 * Panels, the status pill (`bridge-status`) and the banner (`pairing-banner`)
 * carry stable `data-testid` attributes for locators.
 */
import type { BridgeHandle, BridgeStatus } from '../../src/bridge/types.js';
import type { Revisions, TradingEvent } from '../../src/protocol/index.js';
import type { TerminalHost } from '../../src/sdk/types.js';
import type { Alert } from './broker/alertBook.js';
import type { FaultRule, FaultSpec } from './broker/faults.js';
import type { PaperBroker } from './broker/paperBroker.js';
import type { AccountSummary, Fill, Order, Position } from './broker/schemas.js';
import type { TradingLine } from './chart/tradingLines.js';
import type { TimeRange } from './host/chartModel.js';
import type { Interval } from './market/candles.js';

/** What a test may read of one chart. */
export interface ChartHook {
  visibleRange(): TimeRange;
  symbol(): string;
  interval(): Interval;
  tradingLines(): TradingLine[];
  /** The chart controller's revision counters. */
  revisions(): Revisions;
}

/** What a test may read and do at the paper broker. */
export interface BrokerHook {
  /** Orders, oldest first (optionally of one account). */
  orders(accountId?: string): Order[];
  positions(accountId?: string): Position[];
  accounts(): AccountSummary[];
  fills(accountId?: string): Fill[];
  alerts(): Alert[];
  /** The last trading events (the `trading.events` source), oldest first. */
  events(): TradingEvent[];
  faults: {
    /** Replaces every fault with the grammar's items; returns what could not be read. */
    set(text: string): string[];
    add(spec: FaultSpec): FaultRule;
    clear(): void;
    list(): FaultRule[];
  };
  /** Ends a session expiry, as the person's "Re-authenticate" does. */
  reauthenticate(): void;
  /** Moves the broker clock forward (previews and FX quotes expire). */
  advance(ms: number): void;
  /** The broker clock, epoch ms. */
  now(): number;
  /** The broker itself (e.g. to bind `broker.events` to the trading.events channel). */
  instance: PaperBroker;
}

/** The demo's test hooks. */
export interface DemoHooks {
  host: TerminalHost;
  charts: Record<string, ChartHook>;
  bridgeStatus(): BridgeStatus;
  /** The bridge handle once connected (e.g. to `detachAll`). */
  bridge(): BridgeHandle | null;
  /** The market seed: the same seed shows the same prices. */
  seed: number;
  broker: BrokerHook;
}

declare global {
  interface Window {
    __tradescriptDemo?: DemoHooks;
  }
}

/** Publishes the hooks on `window`. */
export function exposeTestHooks(hooks: DemoHooks): void {
  window.__tradescriptDemo = hooks;
}
