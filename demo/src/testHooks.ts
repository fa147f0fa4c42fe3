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
import type { ExtensionLinkStatus } from '../../src/bridge/extension/page/index.js';
import type { BridgeHandle, BridgeStatus } from '../../src/bridge/page/bridgeTypes.js';
import type { TradescriptBridgeElement } from '../../src/element/index.js';
import type { Revisions, TradingEvent } from '../../src/protocol/index.js';
import type { TerminalHost } from '../../src/sdk/types.js';
import type { BridgeMode } from './bridge/bridgeMode.js';
import type { Alert } from './broker/alertBook.js';
import type { FaultRule, FaultSpec } from './broker/faults.js';
import type { PaperBroker } from './broker/paperBroker.js';
import type { AccountSummary, Fill, Order, Position } from './broker/schemas.js';
import type { SourceCount } from './channels/sourceMeter.js';
import type { TradingLine } from './chart/tradingLines.js';
import type { VisibleRange } from './chart/chartModel.js';
import type { Interval } from './market/candles.js';

/** What a test may read of one chart (its reads throw while the chart is closed). */
export interface ChartHook {
  /** False after the person closed the chart (its target is unregistered). */
  isOpen(): boolean;
  /** What the chart shows, in the public vocabulary of `chart.getVisibleRange`. */
  visibleRange(): VisibleRange;
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
  /** Requests the broker received under one operation name (e.g. `fx.confirmQuote`), faulted ones included; all when omitted. */
  requests(op?: string): number;
  /** Moves the broker clock forward (previews and FX quotes expire). */
  advance(ms: number): void;
  /** The broker clock, epoch ms. */
  now(): number;
  /** The broker itself (e.g. to bind `broker.events` to the trading.events channel). */
  instance: PaperBroker;
}

/** The simulated market's clock (a bench pauses one terminal's market while it measures another). */
export interface MarketHook {
  /** Stops the ticks; the charts and panels keep what they show. */
  pause(): void;
  /** Ticks again at the demo's period; the first tick moves the market over the pause. */
  resume(): void;
  ticking(): boolean;
}

/** The `diagnostics.ticks` source (with `?diagnostics=1`). */
export interface DiagnosticsHook {
  /** Events handed to the SDK since the page loaded, over every binding: exact. */
  emitted(): number;
  /** Bindings emitting now. */
  activeBindings(): number;
}

/** Listeners subscribed now at the sources' own emitters. */
export interface ListenerCounts {
  /** Market tick listeners (charts, panels and `data.quotes` bindings). */
  market: number;
  /** Broker trading-event listeners (`trading.events` bindings among them). */
  brokerEvents: number;
  /** `chart.viewport` bindings per open chart. */
  viewport: Record<string, number>;
}

/** The demo's test hooks. */
export interface DemoHooks {
  host: TerminalHost;
  charts: Record<string, ChartHook>;
  /** `element` (the `<tradescript-bridge>` element) or `extension` (`?bridge=extension`). */
  bridgeMode: BridgeMode;
  /** The bridge's status: the element's handle's (the page's while unconnected), or the extension link's. */
  bridgeStatus(): BridgeStatus;
  /** The bridge handle once connected (e.g. to `detachAll`); always null through the extension. */
  bridge(): BridgeHandle | null;
  /** The `<tradescript-bridge>` element; throws through the extension, where there is none. */
  element(): TradescriptBridgeElement;
  /** Opens or closes the header's dock (the element, or where the extension's controls are). */
  dock(open: boolean): void;
  /** The extension link's own status (with `linked`); null in element mode. */
  extensionStatus(): ExtensionLinkStatus | null;
  /** Subscribes and releases per `channelId@target` (e.g. `data.quotes@session`). */
  sources(): Record<string, SourceCount>;
  listeners(): ListenerCounts;
  /** Null unless the page was opened with `?diagnostics=1`. */
  diagnostics: DiagnosticsHook | null;
  /** The market seed: the same seed shows the same prices. */
  seed: number;
  broker: BrokerHook;
  market: MarketHook;
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
