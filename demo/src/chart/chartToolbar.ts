/**
 * A chart panel's header: symbol picker, interval buttons, last price and the
 * chart's id and line count.
 */
import { INTERVALS, type Interval } from '../market/candles.js';
import { el, setText } from '../ui/dom.js';

/** What the toolbar reports when the person picks something. */
export interface ChartToolbarOptions {
  chartId: string;
  symbols: readonly string[];
  onSymbol: (symbol: string) => void;
  onInterval: (interval: Interval) => void;
  /** Back to the latest bars from older history. */
  onLatest: () => void;
  /** Shows a close button that calls this. */
  onClose?: () => void;
}

/** The toolbar of one chart panel. */
export class ChartToolbar {
  readonly element: HTMLElement;
  private readonly select: HTMLSelectElement;
  private readonly buttons = new Map<Interval, HTMLButtonElement>();
  private readonly last = el('span', { class: 'chart-last num' });
  private readonly change = el('span', { class: 'chart-change num' });
  private readonly lines = el('span', { class: 'chart-lines', attrs: { 'data-testid': 'chart-line-count' } });
  private readonly latest = el('button', {
    class: 'interval',
    text: 'Latest',
    title: 'This chart shows older history; back to the latest bars',
    attrs: { type: 'button', 'data-testid': 'chart-latest' },
  });

  constructor(options: ChartToolbarOptions) {
    this.select = el(
      'select',
      { class: 'symbol-select', title: 'Symbol', attrs: { 'data-testid': 'chart-symbol' } },
      options.symbols.map((symbol) => el('option', { text: symbol, attrs: { value: symbol } })),
    );
    this.select.addEventListener('change', () => options.onSymbol(this.select.value));
    const group = el('div', { class: 'interval-group', attrs: { role: 'group', 'aria-label': 'Interval' } });
    for (const interval of INTERVALS) {
      const button = el('button', {
        class: 'interval',
        text: interval,
        attrs: { type: 'button', 'data-interval': interval },
      });
      button.addEventListener('click', () => options.onInterval(interval));
      this.buttons.set(interval, button);
      group.append(button);
    }
    this.latest.addEventListener('click', () => options.onLatest());
    this.latest.hidden = true;
    this.element = el('header', { class: 'panel-head chart-toolbar' }, [
      this.select,
      group,
      this.latest,
      this.last,
      this.change,
      el('span', { class: 'spacer' }),
      this.lines,
      el('span', { class: 'panel-tag', text: options.chartId, title: 'Chart target id' }),
    ]);
    if (options.onClose) this.element.append(closeButton(options.chartId, options.onClose));
  }

  /** Shows the chart's symbol and interval, and offers "Latest" while it shows older history. */
  show(symbol: string, interval: Interval, live: boolean): void {
    this.select.value = symbol;
    this.latest.hidden = live;
    for (const [value, button] of this.buttons) button.classList.toggle('active', value === interval);
  }

  /** Shows the last price and the 24h change. */
  showPrice(last: string, changeText: string, up: boolean): void {
    setText(this.last, last);
    setText(this.change, changeText);
    this.last.classList.toggle('up', up);
    this.last.classList.toggle('down', !up);
    this.change.classList.toggle('up', up);
    this.change.classList.toggle('down', !up);
  }

  /** Shows how many trading lines the chart holds. */
  showLineCount(count: number): void {
    setText(this.lines, count === 1 ? '1 line' : `${count} lines`);
  }
}

/** The chart's close button (agents' subscriptions on it stop as target-unregistered). */
function closeButton(chartId: string, onClose: () => void): HTMLButtonElement {
  const button = el('button', {
    class: 'chart-close',
    text: '×',
    title: 'Close this chart',
    attrs: { type: 'button', 'aria-label': 'Close chart', 'data-testid': `chart-close-${chartId}` },
  });
  button.addEventListener('click', onClose);
  return button;
}
