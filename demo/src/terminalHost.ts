/**
 * Puts the terminal on the host SDK: the session target (with the demo's
 * channels), one closable-or-not slot per chart, the read-only watchlist
 * widget, the trading panels as DOM-rendered widgets and the whole terminal.
 */
import type { Target } from '../../src/protocol/index.js';
import { createTerminalHost } from '../../src/sdk/index.js';
import type { ConfirmHandler, RenderSource, TerminalHost } from '../../src/sdk/index.js';
import { demoChannels, provideQuotes } from './channels/provideChannels.js';
import type { SourceMeter } from './channels/sourceMeter.js';
import type { Interval } from './market/candles.js';
import type { MarketSimulator } from './market/simulator.js';
import type { FrameBatcher } from './ui/frameBatcher.js';
import type { WatchlistModel } from './watchlist/watchlistModel.js';
import { ChartSlot } from './chart/chartSlot.js';
import { watchlistController, watchlistControls } from './watchlist/watchlistController.js';

/** Chart target ids: stable, since agents and tests name them. */
export const CHART_IDS = { main: 'btc-main', alt: 'eth-alt' } as const;
/** Widget target ids. */
export const WIDGET_IDS = {
  watchlist: 'watchlist',
  terminal: 'terminal',
  orderTicket: 'order-ticket',
  blotter: 'blotter',
  alerts: 'alerts',
  risk: 'risk',
  fxQuote: 'fx-quote',
} as const;

/** The watchlist's surface policy: agents may read it, never change it. */
export const WATCHLIST_POLICY = { maxAccess: 'read', detail: 'The watchlist is read-only in this terminal.' } as const;

/** Trading panels that are widget targets of their own (snapshots only; their controls live on the session). */
const PANEL_WIDGETS: ReadonlyArray<{ widgetId: string; label: string; testId: string }> = [
  { widgetId: WIDGET_IDS.orderTicket, label: 'Order ticket', testId: 'panel-order-ticket' },
  { widgetId: WIDGET_IDS.blotter, label: 'Blotter: orders, positions and fills', testId: 'panel-blotter' },
  { widgetId: WIDGET_IDS.alerts, label: 'Price alerts', testId: 'panel-alerts' },
  { widgetId: WIDGET_IDS.risk, label: 'Risk per account', testId: 'panel-risk' },
  { widgetId: WIDGET_IDS.fxQuote, label: 'FX quote (RFQ)', testId: 'panel-fx-quote' },
];

/** One chart to open. */
export interface ChartSpec {
  chartId: string;
  label: string;
  symbol: string;
  interval: Interval;
  closable: boolean;
}

/** Each widget target this module registers, with its panel (its DOM render source). */
export function widgetPanels(panel: (testId: string) => HTMLElement): Map<string, HTMLElement> {
  return new Map([
    [WIDGET_IDS.watchlist, panel('panel-watchlist')],
    ...PANEL_WIDGETS.map(({ widgetId, testId }) => [widgetId, panel(testId)] as const),
    [WIDGET_IDS.terminal, panel('terminal')],
  ]);
}

/** What the terminal mounts. */
export interface TerminalParts {
  market: MarketSimulator;
  frames: FrameBatcher;
  charts: readonly ChartSpec[];
  watchlist: WatchlistModel;
  meter: SourceMeter;
  /** Declares `diagnostics.ticks` in the catalog. */
  diagnostics: boolean;
  /** The element's confirm gate handler ("confirm trades"); none through the extension, which has no such mode. */
  confirm?: ConfirmHandler;
  /** Finds a panel element by its `data-testid`. */
  panel: (testId: string) => HTMLElement;
  /** Facts about the whole terminal for its widget's context. */
  terminalState: () => Record<string, unknown>;
}

/** The host and the chart slots (by chart id). */
export interface MountedTerminal {
  host: TerminalHost;
  charts: ReadonlyMap<string, ChartSlot>;
}

/** Creates the paper host, registers every target and mounts the controllers. */
export function mountTerminal(parts: TerminalParts): MountedTerminal {
  const host = createTerminalHost({
    environment: 'paper',
    ...(parts.confirm ? { confirm: parts.confirm } : {}),
    channels: demoChannels(parts.diagnostics),
    sessionLabel: 'Paper trading session',
  });
  host.registerTarget(
    { scope: 'session' },
    {
      label: 'Paper trading session',
      state: () => ({ quotedSymbols: parts.market.symbols().map((spec) => spec.symbol) }),
    },
  );
  const charts = new Map<string, ChartSlot>();
  const provideShared = (target: Target): void => provideQuotes(host, target, parts);
  for (const spec of parts.charts) {
    const root = parts.panel(`panel-chart-${spec.chartId}`);
    const slot = new ChartSlot({
      ...spec,
      host,
      root,
      market: parts.market,
      frames: parts.frames,
      meter: parts.meter,
      provideShared,
    });
    slot.open();
    charts.set(spec.chartId, slot);
  }
  registerWidgets(host, parts);
  return { host, charts };
}

function registerWidgets(host: TerminalHost, parts: TerminalParts): void {
  const panels = widgetPanels(parts.panel);
  const render = (widgetId: string): RenderSource => {
    const element = panels.get(widgetId);
    if (!element) throw new Error(`No panel for widget ${widgetId}.`);
    return { kind: 'dom', element };
  };
  const watchlist = { scope: 'widget', widgetId: WIDGET_IDS.watchlist } as const;
  host.registerTarget(watchlist, {
    label: 'Watchlist',
    surfacePolicy: WATCHLIST_POLICY,
    state: () => ({ symbols: parts.watchlist.symbols() }),
    render: render(WIDGET_IDS.watchlist),
  });
  host.mount(watchlist, watchlistController, watchlistControls(parts.watchlist, parts.market));
  for (const { widgetId, label } of PANEL_WIDGETS) {
    host.registerTarget({ scope: 'widget', widgetId }, { label, render: render(widgetId) });
  }
  host.registerTarget(
    { scope: 'widget', widgetId: WIDGET_IDS.terminal },
    { label: 'Whole terminal', state: parts.terminalState, render: render(WIDGET_IDS.terminal) },
  );
}
