/**
 * Puts the terminal on the host SDK: one target per chart and widget, the
 * `chart` controller on each chart and the `watchlist` controller on the
 * read-only watchlist widget.
 */
import { createTerminalHost } from '../../../src/sdk/index.js';
import type { MountedController, TerminalHost } from '../../../src/sdk/types.js';
import type { ChartPane } from '../chart/chartPane.js';
import type { MarketSimulator } from '../market/simulator.js';
import type { WatchlistModel } from '../watchlist/watchlistModel.js';
import { chartController } from './chartController.js';
import { chartControls } from './chartControls.js';
import { watchlistController, watchlistControls } from './watchlistController.js';

/** Chart target ids: stable, since agents and tests name them. */
export const CHART_IDS = { main: 'btc-main', alt: 'eth-alt' } as const;
/** Widget target ids. */
export const WIDGET_IDS = { watchlist: 'watchlist', terminal: 'terminal' } as const;

/** The watchlist's surface policy: agents may read it, never change it. */
export const WATCHLIST_POLICY = { maxAccess: 'read', detail: 'The watchlist is read-only in this terminal.' } as const;

/** What the terminal mounts. */
export interface TerminalParts {
  market: MarketSimulator;
  charts: ReadonlyArray<{ pane: ChartPane; label: string }>;
  watchlist: WatchlistModel;
  /** Facts about the whole terminal for its widget's context. */
  terminalState: () => Record<string, unknown>;
}

/** The host and each chart's mounted controller (whose revisions person gestures bump). */
export interface MountedTerminal {
  host: TerminalHost;
  charts: ReadonlyMap<string, MountedController>;
}

/** Creates the paper host, registers every target and mounts the controllers. */
export function mountTerminal(parts: TerminalParts): MountedTerminal {
  const host = createTerminalHost({ environment: 'paper' });
  const symbols = (): string[] => parts.market.symbols().map((spec) => spec.symbol);
  const charts = new Map<string, MountedController>();
  for (const { pane, label } of parts.charts) {
    const target = { scope: 'chart', chartId: pane.chartId } as const;
    host.registerTarget(target, { label, state: () => pane.state() });
    charts.set(pane.chartId, host.mount(target, chartController, chartControls(pane, symbols)));
  }
  const watchlist = { scope: 'widget', widgetId: WIDGET_IDS.watchlist } as const;
  host.registerTarget(watchlist, {
    label: 'Watchlist',
    surfacePolicy: WATCHLIST_POLICY,
    state: () => ({ symbols: parts.watchlist.symbols() }),
  });
  host.mount(watchlist, watchlistController, watchlistControls(parts.watchlist, parts.market));
  host.registerTarget(
    { scope: 'widget', widgetId: WIDGET_IDS.terminal },
    { label: 'Whole terminal', state: parts.terminalState },
  );
  return { host, charts };
}
