/**
 * The demo trading terminal: a simulated market, two charts and a watchlist,
 * mounted on the host SDK and paired to a TradeScript MCP server through the
 * bridge.
 */
import './styles/base.css';
import './styles/panels.css';
import './styles/trading.css';
import type { MountedController } from '../../src/sdk/types.js';
import { BridgeSession } from './bridge/bridgeSession.js';
import { OffsetClock } from './broker/clock.js';
import { PaperBroker } from './broker/paperBroker.js';
import { takePairCode } from './bridge/pairing.js';
import { ChartPane } from './chart/chartPane.js';
import { CHART_IDS, mountTerminal, WIDGET_IDS } from './host/terminalHost.js';
import type { Interval } from './market/candles.js';
import { MarketSimulator } from './market/simulator.js';
import { exposeTestHooks, type BrokerHook, type ChartHook } from './testHooks.js';
import { showDecimal } from './trading/panels/display.js';
import { LadderModel } from './trading/ladderModel.js';
import { mountPanels } from './trading/mountPanels.js';
import { mountTrading } from './trading/mountTrading.js';
import { byTestId, setText } from './ui/dom.js';
import { FrameBatcher } from './ui/frameBatcher.js';
import { GrantSwitch } from './ui/grantSwitch.js';
import { PairingBanner } from './ui/pairingBanner.js';
import { StatusPill } from './ui/statusPill.js';
import { WatchlistModel } from './watchlist/watchlistModel.js';
import { WatchlistView } from './watchlist/watchlistView.js';

const DEFAULT_SEED = 7391;

// First, before anything can fail: the single-use code must leave the address bar and history.
const pairCode = takePairCode(window.location, window.history);

/** `?seed=N` picks another deterministic market. */
function readSeed(search: string): number {
  const value = Number(new URLSearchParams(search).get('seed'));
  return Number.isSafeInteger(value) && value > 0 ? value : DEFAULT_SEED;
}

const market = new MarketSimulator({ seed: readSeed(window.location.search) });
const brokerClock = new OffsetClock();
const broker = new PaperBroker({ market, clock: brokerClock, seed: market.seed });
// `?faults=` injects paper-broker failures for tests (grammar in demo/README.md).
if (broker.faults.addText(new URLSearchParams(window.location.search).get('faults') ?? '').length > 0) {
  console.warn('Some ?faults= items were not understood; see demo/README.md for the grammar.');
}
const ladder = new LadderModel('BTCUSDT');
const frames = new FrameBatcher();
const mountedCharts = new Map<string, MountedController>();
const bumpViewport = (chartId: string) => (): void => void mountedCharts.get(chartId)?.revisions.bump('viewport');

function chartPane(chartId: string, symbol: string, interval: Interval): ChartPane {
  const root = byTestId(`panel-chart-${chartId}`);
  return new ChartPane({ chartId, root, market, frames, symbol, interval, onUserViewportChange: bumpViewport(chartId) });
}

const charts = [
  { pane: chartPane(CHART_IDS.main, 'BTCUSDT', '1m'), label: 'Main chart' },
  { pane: chartPane(CHART_IDS.alt, 'ETHUSDT', '5m'), label: 'Second chart' },
];
const watchlist = new WatchlistModel(market.symbols().map((spec) => spec.symbol));
const mainPane = charts[0]?.pane;
new WatchlistView(byTestId('watchlist-body'), watchlist, market, frames, (symbol) => {
  mainPane?.setSymbol(symbol);
  bumpViewport(CHART_IDS.main)();
  ladder.setSymbol(symbol);
});

const { host, charts: mounted } = mountTerminal({
  market,
  charts,
  watchlist,
  terminalState: () => ({
    account: 'PAPER-001',
    charts: charts.map(({ pane }) => pane.chartId),
    widgets: [...Object.values(WIDGET_IDS), 'depth-ladder'],
    marketSeed: market.seed,
    openOrders: broker.view.orders().filter((o) => ['new', 'working', 'partiallyFilled'].includes(o.status)).length,
    positions: broker.view.positions().length,
    equity: Object.fromEntries(broker.view.accounts().map((a) => [a.accountId, a.equity])),
  }),
});
for (const [chartId, controller] of mounted) mountedCharts.set(chartId, controller);
mountTrading(host, broker, ladder);
mountPanels({ broker, market, frames, ladder });

const pill = new StatusPill(byTestId('bridge-status'));
const banner = new PairingBanner(byTestId('pairing-banner'));
const session = new BridgeSession({
  host,
  pairCode,
  onStatus: (status) => {
    pill.show(status);
    banner.show(status);
  },
  onGrantProposed: (grant) => {
    host.grant = grant;
    grantSwitch.show(grant);
    session.updateInfo();
  },
});
const grantSwitch = new GrantSwitch(byTestId('grant'), host.grant, (grant) => {
  host.grant = grant;
  session.updateInfo();
});

exposeTestHooks({
  host,
  charts: Object.fromEntries(charts.map(({ pane }) => [pane.chartId, chartHook(pane)])),
  bridgeStatus: () => session.status(),
  bridge: () => session.bridge(),
  seed: market.seed,
  broker: brokerHook(),
});

function brokerHook(): BrokerHook {
  const { view, faults } = broker;
  return {
    orders: (accountId) => view.orders(accountId),
    positions: (accountId) => view.positions(accountId),
    accounts: () => view.accounts(),
    fills: (accountId) => view.fills(accountId),
    alerts: () => view.alerts(),
    events: () => broker.events.recent(),
    faults: {
      set: (text) => {
        faults.clear();
        return faults.addText(text);
      },
      add: (spec) => faults.add(spec),
      clear: () => faults.clear(),
      list: () => faults.list(),
    },
    reauthenticate: () => broker.reauthenticate(),
    advance: (ms) => brokerClock.advance(ms),
    now: () => brokerClock.now(),
    instance: broker,
  };
}

function chartHook(pane: ChartPane): ChartHook {
  return {
    visibleRange: () => pane.visibleRange(),
    symbol: () => pane.symbol(),
    interval: () => pane.interval(),
    tradingLines: () => pane.lines.list(),
    revisions: () => mountedCharts.get(pane.chartId)?.revisions.all() ?? {},
  };
}

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

function startClock(): void {
  const clock = byTestId('clock');
  setText(byTestId('market-seed'), `seed ${market.seed}`);
  const tick = (): void => setText(clock, `${new Date().toISOString().slice(11, 19)} UTC`);
  tick();
  setInterval(tick, 1000);
}

startClock();
startEquity();
market.start(500);
void session.start(window.location.origin);
