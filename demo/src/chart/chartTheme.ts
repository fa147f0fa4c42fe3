/**
 * The dark terminal look of every chart, in one place.
 */
import {
  CandlestickSeries,
  ColorType,
  CrosshairMode,
  HistogramSeries,
  LineStyle,
  type ChartOptions,
  type DeepPartial,
  type IChartApi,
  type ISeriesApi,
} from 'lightweight-charts';
import type { TradingLineKind } from './tradingLines.js';

/** Candle colors, shared with the legend and the volume bars. */
export const CANDLE_COLORS = {
  up: '#26a69a',
  down: '#ef5350',
  upVolume: '#26a69a55',
  downVolume: '#ef535055',
} as const;

/** Options of every chart. The footer carries the TradingView attribution, so the logo stays off. */
export function chartOptions(): DeepPartial<ChartOptions> {
  return {
    autoSize: true,
    layout: {
      background: { type: ColorType.Solid, color: '#0e1219' },
      textColor: '#8a94a6',
      fontSize: 11,
      fontFamily: "'Inter', system-ui, -apple-system, 'Segoe UI', sans-serif",
      attributionLogo: false,
    },
    grid: { vertLines: { color: '#161c27' }, horzLines: { color: '#161c27' } },
    crosshair: {
      mode: CrosshairMode.Normal,
      vertLine: { color: '#5b6578', labelBackgroundColor: '#2a3242' },
      horzLine: { color: '#5b6578', labelBackgroundColor: '#2a3242' },
    },
    rightPriceScale: { borderColor: '#1f2634', scaleMargins: { top: 0.08, bottom: 0.22 } },
    timeScale: { borderColor: '#1f2634', timeVisible: true, secondsVisible: false, rightOffset: 6, barSpacing: 7 },
  };
}

/** Line style per trading line kind: orders dashed, positions solid, alerts dotted. */
export const LINE_STYLES: Readonly<Record<TradingLineKind, LineStyle>> = {
  order: LineStyle.Dashed,
  position: LineStyle.Solid,
  alert: LineStyle.Dotted,
};

/** Adds the candle series and, under it on its own scale, the volume bars. */
export function addPriceSeries(chart: IChartApi): {
  candles: ISeriesApi<'Candlestick'>;
  volume: ISeriesApi<'Histogram'>;
} {
  const candles = chart.addSeries(CandlestickSeries, {
    upColor: CANDLE_COLORS.up,
    downColor: CANDLE_COLORS.down,
    wickUpColor: CANDLE_COLORS.up,
    wickDownColor: CANDLE_COLORS.down,
    borderVisible: false,
  });
  const volume = chart.addSeries(HistogramSeries, {
    priceScaleId: 'volume',
    priceFormat: { type: 'volume' },
    lastValueVisible: false,
    priceLineVisible: false,
  });
  chart.priceScale('volume').applyOptions({ scaleMargins: { top: 0.84, bottom: 0 } });
  return { candles, volume };
}
