/**
 * One candlestick chart panel on lightweight-charts: simulated bars, live
 * updates batched per animation frame, trading lines as price lines, and the
 * {@link ChartModel} the chart controls act on.
 */
import {
  createChart,
  type IChartApi,
  type IPriceLine,
  type ISeriesApi,
  type MouseEventParams,
  type Time,
  type UTCTimestamp,
} from 'lightweight-charts';
import type { ViewportChange } from './viewportChannel.js';
import { toVisibleRange, type ChartModel, type TimeRange } from './chartModel.js';
import { INTERVAL_SECONDS, type Candle, type Interval } from '../market/candles.js';
import type { MarketSimulator } from '../market/simulator.js';
import { el } from '../ui/dom.js';
import { formatDisplayPrice, formatPercent } from '../ui/format.js';
import type { FrameBatcher } from '../ui/frameBatcher.js';
import { ChartLegend } from './chartLegend.js';
import { addPriceSeries, CANDLE_COLORS, chartOptions, LINE_STYLES } from './chartTheme.js';
import { ChartToolbar } from './chartToolbar.js';
import { GestureTracker } from './gestureTracker.js';
import { snapToBars } from './snapRange.js';
import { TradingLineStore, type TradingLine } from './tradingLines.js';

/** Bars shown after loading a symbol or interval. */
const INITIAL_BARS = 120;
/**
 * Live bars the series holds after loading: those shown and a margin to
 * scroll. lightweight-charts rebuilds its drawing data for every bar the
 * series holds on each update and repaint, so holding all of the market's
 * bars (500) made every tick's chart work about half as long again. The
 * older live bars load when the person scrolls near the first one held
 * ({@link LOAD_OLDER_WITHIN}) or a range reaches before it.
 */
const LOADED_BARS = 150;
/** How near (in bars) to the first bar held a scroll back loads the older live bars. */
const LOAD_OLDER_WITHIN = 10;

/** How a chart panel is built. */
export interface ChartPaneOptions {
  chartId: string;
  /** The panel element; the pane fills it. */
  root: HTMLElement;
  market: MarketSimulator;
  frames: FrameBatcher;
  symbol: string;
  interval: Interval;
  /** The person scrolled or zoomed (`range`) or picked another symbol or interval. */
  onUserViewportChange: (change: ViewportChange) => void;
  /** When given, the toolbar offers to close the chart. */
  onClose?: () => void;
}

/** A chart panel and the model its controls act on. */
export class ChartPane implements ChartModel {
  readonly chartId: string;
  readonly lines: TradingLineStore;
  /** The element lightweight-charts draws in: what {@link screenshot} shows, on screen. */
  readonly surface: HTMLElement;
  private readonly market: MarketSimulator;
  private readonly frames: FrameBatcher;
  private readonly chart: IChartApi;
  private readonly candles: ISeriesApi<'Candlestick'>;
  private readonly volume: ISeriesApi<'Histogram'>;
  private readonly toolbar: ChartToolbar;
  private readonly legend = new ChartLegend();
  private readonly gestures: GestureTracker;
  private readonly priceLines = new Map<string, IPriceLine>();
  private readonly unsubscribe: () => void;
  private currentSymbol: string;
  private currentInterval: Interval;
  private loaded: TimeRange = { from: 0, to: 0 };
  /** A range applied by the program that the chart has not drawn yet (it applies ranges on its next frame). */
  private pending: TimeRange | null = null;
  /** False while the chart shows older history (fetched for a range before its bars): live bars wait. */
  private live = true;
  /** True while the series holds only the newest {@link LOADED_BARS} of the live bars. */
  private partial = false;
  private hovering = false;
  /** The newest bar the series holds, whose figures the toolbar and legend show on the next frame. */
  private newest: Candle | undefined;
  /** True when a tick's bars wait for {@link flush} (the tab was hidden, or the chart showed history). */
  private behind = false;

  constructor(options: ChartPaneOptions) {
    this.chartId = options.chartId;
    this.market = options.market;
    this.frames = options.frames;
    this.currentSymbol = options.symbol;
    this.currentInterval = options.interval;
    this.toolbar = new ChartToolbar({
      chartId: options.chartId,
      symbols: options.market.symbols().map((spec) => spec.symbol),
      onSymbol: (symbol) => {
        this.setSymbol(symbol);
        options.onUserViewportChange('symbol');
      },
      onInterval: (interval) => {
        this.setInterval(interval);
        options.onUserViewportChange('interval');
      },
      onLatest: () => {
        this.load();
        options.onUserViewportChange('range');
      },
      ...(options.onClose ? { onClose: options.onClose } : {}),
    });
    const canvasHost = el('div', { class: 'chart-canvas' });
    this.surface = canvasHost;
    options.root.append(this.toolbar.element, el('div', { class: 'chart-body' }, [canvasHost, this.legend.element]));
    this.chart = createChart(canvasHost, chartOptions());
    ({ candles: this.candles, volume: this.volume } = addPriceSeries(this.chart));
    this.lines = new TradingLineStore(this.chartId, {
      draw: (line) => this.drawLine(line),
      erase: (id) => this.eraseLine(id),
    });
    this.lines.onChange(() => this.toolbar.showLineCount(this.lines.size));
    this.gestures = new GestureTracker(canvasHost, () => options.onUserViewportChange('range'));
    this.chart.timeScale().subscribeVisibleLogicalRangeChange((range) => {
      this.gestures.rangeChanged();
      if (range && range.from < LOAD_OLDER_WITHIN) this.loadOlderLiveBars();
    });
    this.chart.timeScale().subscribeVisibleTimeRangeChange(() => (this.pending = null));
    this.chart.subscribeCrosshairMove((param) => this.crosshairMoved(param));
    this.unsubscribe = this.market.subscribe((tick) => {
      if (tick.symbol !== this.currentSymbol) return;
      // The series takes the tick now, in the tick's task, so lightweight-charts repaints in the frame that shows
      // the rest of the tick: handed over from that frame's batch, its repaint waits for a frame of its own. A
      // hidden tab leaves it to the batch, which runs when the tab shows again.
      if (this.live && document.visibilityState === 'visible') this.applyBars();
      else this.behind = true;
      this.frames.schedule(`chart:${this.chartId}`, () => this.flush());
    });
    this.toolbar.showLineCount(0);
    this.load();
  }

  symbol(): string {
    return this.currentSymbol;
  }

  interval(): Interval {
    return this.currentInterval;
  }

  visibleRange(): TimeRange {
    if (this.pending) return { ...this.pending };
    const range = this.chart.timeScale().getVisibleRange();
    if (!range) return { ...this.loaded };
    return { from: toSeconds(range.from), to: toSeconds(range.to) };
  }

  dataRange(): TimeRange {
    return { ...this.loaded };
  }

  newestTime(): number {
    return this.live
      ? this.loaded.to
      : (this.market.candles(this.currentSymbol, this.currentInterval, 1)[0]?.time ?? 0);
  }

  applyVisibleRange(range: TimeRange): TimeRange {
    const liveFrom = this.market.candles(this.currentSymbol, this.currentInterval)[0]?.time ?? 0;
    if (range.to < liveFrom) this.loadHistory(range.to);
    else {
      if (!this.live) this.load();
      if (range.from < this.loaded.from) this.loadOlderLiveBars();
    }
    this.chart.timeScale().setVisibleRange({ from: range.from as UTCTimestamp, to: range.to as UTCTimestamp });
    this.pending = snapToBars(range, this.loaded, INTERVAL_SECONDS[this.currentInterval]);
    return { ...this.pending };
  }

  setSymbol(symbol: string): void {
    this.currentSymbol = symbol;
    this.load();
  }

  setInterval(interval: Interval): void {
    this.currentInterval = interval;
    this.load();
  }

  lastPrice(): string {
    return this.market.quote(this.currentSymbol).last;
  }

  /** What the chart's context shows an agent. */
  state(): Record<string, unknown> {
    return {
      symbol: this.currentSymbol,
      interval: this.currentInterval,
      visibleRange: toVisibleRange(this.visibleRange()),
      showsLatest: this.live,
      lastPrice: this.lastPrice(),
      tradingLines: this.lines.size,
    };
  }

  /** The chart's own canvases as one image (for snapshots). */
  screenshot(): HTMLCanvasElement {
    return this.chart.takeScreenshot();
  }

  /** Stops updates and frees the chart. */
  dispose(): void {
    this.unsubscribe();
    this.gestures.dispose();
    this.chart.remove();
  }

  private load(): void {
    const bars = this.market.candles(this.currentSymbol, this.currentInterval, LOADED_BARS);
    this.live = true;
    this.partial = bars.length >= LOADED_BARS;
    this.setBars(bars);
    this.chart.timeScale().setVisibleLogicalRange({ from: bars.length - INITIAL_BARS, to: bars.length + 5 });
    const first = bars[Math.max(bars.length - INITIAL_BARS, 0)];
    this.pending = first ? { from: first.time, to: this.loaded.to } : null;
    this.showLatest(bars[bars.length - 1]);
  }

  /**
   * Gives the series all of the market's live bars where it held the newest
   * {@link LOADED_BARS}; lightweight-charts keeps the view on the same bars.
   */
  private loadOlderLiveBars(): void {
    if (!this.live || !this.partial) return;
    this.partial = false;
    this.setBars(this.market.candles(this.currentSymbol, this.currentInterval));
  }

  /** Fetches the older bars that end at `endSeconds`; live bars wait until the person goes back to the latest. */
  private loadHistory(endSeconds: number): void {
    this.live = false;
    this.partial = false;
    this.setBars(this.market.archiveCandles(this.currentSymbol, this.currentInterval, endSeconds));
  }

  private setBars(bars: Candle[]): void {
    const spec = this.market.spec(this.currentSymbol);
    if (spec)
      this.candles.applyOptions({
        priceFormat: { type: 'price', precision: spec.decimals, minMove: 10 ** -spec.decimals },
      });
    this.candles.setData(bars.map(toCandleData));
    this.volume.setData(bars.map(toVolumeData));
    this.loaded = { from: bars[0]?.time ?? 0, to: bars[bars.length - 1]?.time ?? 0 };
    this.newest = bars[bars.length - 1];
    this.behind = false;
    this.toolbar.show(this.currentSymbol, this.currentInterval, this.live);
    this.legend.showTitle(
      `${this.currentSymbol} · ${this.currentInterval} · Simulated${this.live ? '' : ' · history'}`,
    );
  }

  /**
   * Applies any bars the tick did not (a hidden tab's) and shows the newest
   * bar's figures. The ticks' task hands every chart's series its bars, so
   * lightweight-charts repaints them all in the frame that runs this: one
   * frame per tick for the views and the charts. Handing the bars over here
   * instead cost a frame per tick for the charts' repaint (and s9's 107c300,
   * lagging the second chart's series a frame, one more): each frame costs
   * the whole browser commit, raster and compositing.
   */
  private flush(): void {
    if (!this.live) return;
    // Only bars the tick left: handing a bar over again would repaint the chart in a frame of its own.
    if (this.behind) this.applyBars();
    this.showLatest(this.newest);
  }

  /** Hands the series the bars since the newest it has (read from the market now). */
  private applyBars(): void {
    const bars = this.market.candlesSince(this.currentSymbol, this.currentInterval, this.loaded.to);
    for (const bar of bars) {
      this.candles.update(toCandleData(bar));
      this.volume.update(toVolumeData(bar));
    }
    const last = bars[bars.length - 1];
    this.behind = false;
    if (last) {
      this.loaded.to = last.time;
      this.newest = last;
    }
  }

  private showLatest(bar: Candle | undefined): void {
    const spec = this.market.spec(this.currentSymbol);
    if (!bar || !spec) return;
    const change = this.market.dayChange(this.currentSymbol);
    this.toolbar.showPrice(
      formatDisplayPrice(bar.close, spec.decimals),
      formatPercent(change.changePercent),
      change.change >= 0,
    );
    if (!this.hovering) this.legend.showBar(bar, spec.decimals);
  }

  private crosshairMoved(param: MouseEventParams<Time>): void {
    const data = param.seriesData.get(this.candles);
    const spec = this.market.spec(this.currentSymbol);
    this.hovering = data !== undefined && 'open' in data;
    if (data && 'open' in data && spec) {
      const volume = param.seriesData.get(this.volume);
      const bar = { ...data, time: toSeconds(data.time), volume: volume && 'value' in volume ? volume.value : 0 };
      this.legend.showBar(bar, spec.decimals);
    }
  }

  private drawLine(line: TradingLine): void {
    const options = {
      id: line.lineId,
      price: Number(line.price),
      color: line.color,
      lineWidth: 1 as const,
      lineStyle: LINE_STYLES[line.kind],
      axisLabelVisible: true,
      title: line.label,
    };
    const existing = this.priceLines.get(line.lineId);
    if (existing) existing.applyOptions(options);
    else this.priceLines.set(line.lineId, this.candles.createPriceLine(options));
  }

  private eraseLine(lineId: string): void {
    const line = this.priceLines.get(lineId);
    if (line) this.candles.removePriceLine(line);
    this.priceLines.delete(lineId);
  }
}

function toSeconds(time: Time): number {
  if (typeof time === 'number') return time;
  if (typeof time === 'string') return Math.floor(Date.parse(time) / 1000);
  return Math.floor(Date.UTC(time.year, time.month - 1, time.day) / 1000);
}

function toCandleData(bar: Candle): { time: UTCTimestamp; open: number; high: number; low: number; close: number } {
  return { time: bar.time as UTCTimestamp, open: bar.open, high: bar.high, low: bar.low, close: bar.close };
}

function toVolumeData(bar: Candle): { time: UTCTimestamp; value: number; color: string } {
  const color = bar.close >= bar.open ? CANDLE_COLORS.upVolume : CANDLE_COLORS.downVolume;
  return { time: bar.time as UTCTimestamp, value: bar.volume, color };
}
