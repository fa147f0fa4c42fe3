/**
 * The OHLCV legend over a chart's top-left corner: the hovered bar, or the
 * forming one when nothing is hovered.
 */
import type { Candle } from '../market/candles.js';
import { el, setText } from '../ui/dom.js';
import { formatDisplayPrice, formatVolume } from '../ui/format.js';

/** The legend overlay of one chart. */
export class ChartLegend {
  readonly element: HTMLElement;
  private readonly title = el('span', { class: 'legend-title' });
  private readonly values = new Map<string, HTMLElement>();

  constructor() {
    const fields = ['O', 'H', 'L', 'C', 'Vol'].map((name) => {
      const value = el('span', { class: 'num' });
      this.values.set(name, value);
      return el('span', { class: 'legend-field' }, [el('span', { class: 'legend-key', text: name }), value]);
    });
    this.element = el('div', { class: 'chart-legend', attrs: { 'aria-hidden': 'true' } }, [this.title, ...fields]);
  }

  /** Names the series, e.g. `BTCUSDT · 1m · Simulated`. */
  showTitle(text: string): void {
    setText(this.title, text);
  }

  /** Shows one bar's values. */
  showBar(bar: Candle, decimals: number): void {
    const up = bar.close >= bar.open;
    this.element.classList.toggle('up', up);
    this.element.classList.toggle('down', !up);
    this.set('O', formatDisplayPrice(bar.open, decimals));
    this.set('H', formatDisplayPrice(bar.high, decimals));
    this.set('L', formatDisplayPrice(bar.low, decimals));
    this.set('C', formatDisplayPrice(bar.close, decimals));
    this.set('Vol', formatVolume(bar.volume));
  }

  private set(name: string, text: string): void {
    const node = this.values.get(name);
    if (node) setText(node, text);
  }
}
