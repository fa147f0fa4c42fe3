/**
 * Read-only hooks for end-to-end tests. Playwright reads what the page shows
 * through `window.__tradescriptDemo` instead of scraping canvases:
 *
 *   await page.waitForFunction(() => window.__tradescriptDemo?.bridgeStatus().state === 'paired');
 *   const range = await page.evaluate(() => window.__tradescriptDemo!.charts['btc-main']!.visibleRange());
 *
 * Panels, the status pill (`bridge-status`) and the banner (`pairing-banner`)
 * carry stable `data-testid` attributes for locators.
 */
import type { BridgeHandle, BridgeStatus } from '../../src/bridge/types.js';
import type { Revisions } from '../../src/protocol/index.js';
import type { TerminalHost } from '../../src/sdk/types.js';
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

/** The demo's test hooks. */
export interface DemoHooks {
  host: TerminalHost;
  charts: Record<string, ChartHook>;
  bridgeStatus(): BridgeStatus;
  /** The bridge handle once connected (e.g. to `detachAll`). */
  bridge(): BridgeHandle | null;
  /** The market seed: the same seed shows the same prices. */
  seed: number;
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
