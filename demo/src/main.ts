/**
 * The demo trading terminal: a simulated market, two charts, a watchlist and
 * a paper broker, mounted on the host SDK and paired to a TradeScript MCP
 * server through the `<tradescript-bridge>` element in the header, or, with
 * `?bridge=extension`, offered to the TradeScript Chrome extension.
 */
// Stylesheets in cascade order: the shared frame and panels, then each feature's own.
import './styles/base.css';
import './styles/panels.css';
import './watchlist/watchlist.css';
import './chart/chart.css';
import './styles/controls.css';
import './orders/orders.css';
import './ladder/ladder.css';
import './alerts/alerts.css';
import './risk/risk.css';
import './fx/fx.css';
import './trading/brokerSession.css';
import './faults/faults.css';
import './styles/bridge.css';
import { createConfirmGate } from '../../src/element/index.js';
import { readBridgeMode } from './bridge/bridgeMode.js';
import { defineQuietBridge } from './bridge/quietBridgeElement.js';
import { startBridge } from './bridge/startBridge.js';
import { targetLocator } from './bridge/targetLocator.js';
import { OffsetClock } from './broker/clock.js';
import { PaperBroker } from './broker/paperBroker.js';
import { DiagnosticTicks } from './channels/diagnosticsChannel.js';
import { diagnosticsRequested, provideSessionChannels } from './channels/provideChannels.js';
import { SourceMeter } from './channels/sourceMeter.js';
import { brokerHook, chartHook, marketHook } from './demoHooks.js';
import { CHART_IDS, mountTerminal, WIDGET_IDS, widgetPanels } from './terminalHost.js';
import { MarketSimulator } from './market/simulator.js';
import { exposeTestHooks } from './testHooks.js';
import { showDecimal } from './ui/display.js';
import { LadderModel } from './ladder/ladderModel.js';
import { mountPanels } from './trading/mountPanels.js';
import { LADDER_WIDGET_ID } from './ladder/depthLadderController.js';
import { mountTrading } from './trading/mountTrading.js';
import { byTestId, setText } from './ui/dom.js';
import { FrameBatcher } from './ui/frameBatcher.js';
import { WatchlistModel } from './watchlist/watchlistModel.js';
import { WatchlistView } from './watchlist/watchlistView.js';

const search = window.location.search;
const mode = readBridgeMode(search);
// First, before anything can fail: the element (pair-from-url) takes the single-use code out of the address.
if (mode === 'element') defineQuietBridge();

const DEFAULT_SEED = 7391;
/** The market ticks every 500 ms. */
const MARKET_PERIOD_MS = 500;
const OPEN_STATUSES = new Set(['new', 'working', 'partiallyFilled']);

/** `?seed=N` picks another deterministic market. */
function readSeed(search: string): number {
  const value = Number(new URLSearchParams(search).get('seed'));
  return Number.isSafeInteger(value) && value > 0 ? value : DEFAULT_SEED;
}

const market = new MarketSimulator({ seed: readSeed(search) });
const brokerClock = new OffsetClock();
const broker = new PaperBroker({ market, clock: brokerClock, seed: market.seed });
// `?faults=` injects paper-broker failures for tests (grammar in demo/README.md).
if (broker.faults.addText(new URLSearchParams(search).get('faults') ?? '').length > 0) {
  console.warn('Some ?faults= items were not understood; see demo/README.md for the grammar.');
}
const ladder = new LadderModel('BTCUSDT');
const frames = new FrameBatcher();
const meter = new SourceMeter();
const diagnostics = diagnosticsRequested(search) ? new DiagnosticTicks() : null;
const gate = createConfirmGate();
const watchlist = new WatchlistModel(market.symbols().map((spec) => spec.symbol));

const { host, charts } = mountTerminal({
  market,
  frames,
  watchlist,
  meter,
  diagnostics: diagnostics !== null,
  confirm: mode === 'element' ? gate.confirm : undefined,
  panel: (testId) => byTestId(testId),
  charts: [
    { chartId: CHART_IDS.main, label: 'Main chart', symbol: 'BTCUSDT', interval: '1m', closable: false },
    {
      chartId: CHART_IDS.alt,
      label: 'Second chart',
      symbol: 'ETHUSDT',
      interval: '5m',
      closable: true,
    },
  ],
  terminalState: () => ({
    account: 'PAPER-001',
    charts: [...charts].filter(([, slot]) => slot.pane !== null).map(([chartId]) => chartId),
    widgets: [...Object.values(WIDGET_IDS), LADDER_WIDGET_ID],
    marketSeed: market.seed,
    openOrders: broker.view.orders().filter((o) => OPEN_STATUSES.has(o.status)).length,
    positions: broker.view.positions().length,
    equity: Object.fromEntries(broker.view.accounts().map((a) => [a.accountId, a.equity])),
  }),
});
provideSessionChannels(host, { market, events: broker.events, meter, diagnostics });
const ladderPanel = byTestId('panel-depth-ladder');
mountTrading(host, broker, ladder, { kind: 'dom', element: ladderPanel });
mountPanels({ broker, market, frames, ladder });

new WatchlistView(byTestId('watchlist-body'), watchlist, market, frames, (symbol) => {
  charts.get(CHART_IDS.main)?.personApplies('symbol', (pane) => pane.setSymbol(symbol));
  ladder.setSymbol(symbol);
});

const widgets = widgetPanels((testId) => byTestId(testId)).set(LADDER_WIDGET_ID, ladderPanel);
const bridge = startBridge(mode, { host, gate, title: document.title, locate: targetLocator({ charts, widgets }) });

exposeTestHooks({
  host,
  charts: Object.fromEntries([...charts].map(([chartId, slot]) => [chartId, chartHook(slot)])),
  ...bridge,
  sources: () => meter.snapshot(),
  listeners: () => ({
    market: market.listenerCount(),
    brokerEvents: broker.events.listenerCount(),
    viewport: Object.fromEntries([...charts].map(([chartId, slot]) => [chartId, slot.viewportListeners()])),
  }),
  diagnostics: diagnostics && {
    emitted: () => diagnostics.emitted(),
    activeBindings: () => diagnostics.activeBindings(),
  },
  seed: market.seed,
  broker: brokerHook(broker, brokerClock),
  market: marketHook(market, MARKET_PERIOD_MS),
});

/** The header shows the main account's equity, live. */
function startEquity(): void {
  const node = byTestId('equity');
  const paint = (): void => {
    const equity = broker.view.accounts().find((a) => a.accountId === 'PAPER-001')?.equity;
    setText(node, `${showDecimal(equity)} USDT`);
  };
  market.subscribe(() => frames.schedule('equity', paint));
  broker.events.onChange(() => frames.schedule('equity', paint));
  paint();
}

/**
 * The status bar's UTC clock. While the market ticks (every 500 ms) the clock
 * moves in the frame that paints the tick anyway: a timer of its own would
 * add a frame (style, layout, paint) every second at another moment.
 */
function startClock(): void {
  const clock = byTestId('clock');
  setText(byTestId('market-seed'), `seed ${market.seed}`);
  const tick = (): void => setText(clock, `${new Date().toISOString().slice(11, 19)} UTC`);
  tick();
  let lastTick = -Infinity;
  market.subscribe(() => {
    lastTick = performance.now();
    frames.schedule('clock', tick);
  });
  setInterval(() => {
    if (performance.now() - lastTick > 1000) tick();
  }, 1000);
}

startClock();
startEquity();
// `?market=paused` (a bench's control row): the terminal as it opened, without the live market's work.
if (new URLSearchParams(search).get('market') !== 'paused') market.start(MARKET_PERIOD_MS);
