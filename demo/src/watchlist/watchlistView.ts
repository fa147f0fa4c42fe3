/**
 * The watchlist panel: one row per watched symbol with live last price and
 * 24h change, redrawn at most once per animation frame. A price that moved
 * flashes its tint for {@link FLASH_MS}: a class on, then off — two paints,
 * where a fading background animation repainted every frame while any price
 * moved (nearly always, at two ticks a second), keeping the terminal's main
 * thread and compositor busy at 60 frames a second with nobody looking.
 */
import type { MarketSimulator } from '../market/simulator.js';
import { el, setText } from '../ui/dom.js';
import { formatDisplayPrice, formatPercent } from '../ui/format.js';
import type { FrameBatcher } from '../ui/frameBatcher.js';
import type { WatchlistModel } from './watchlistModel.js';

/** How long a moved price keeps its tint. */
const FLASH_MS = 420;

interface Row {
  element: HTMLElement;
  last: HTMLElement;
  change: HTMLElement;
  price: number;
}

/** The watchlist panel body. */
export class WatchlistView {
  private readonly body: HTMLElement;
  private readonly rows = new Map<string, Row>();
  private readonly flashing = new Set<HTMLElement>();
  private unflash: ReturnType<typeof setTimeout> | undefined;

  /** Fills `root`; `onPick` runs when the person clicks a row. */
  constructor(
    root: HTMLElement,
    private readonly model: WatchlistModel,
    private readonly market: MarketSimulator,
    frames: FrameBatcher,
    private readonly onPick: (symbol: string) => void,
  ) {
    this.body = el('div', { class: 'watch-rows', attrs: { role: 'list' } });
    root.append(
      el('div', { class: 'watch-columns' }, [
        el('span', { text: 'Symbol' }),
        el('span', { class: 'num', text: 'Last' }),
        el('span', { class: 'num', text: '24h' }),
      ]),
      this.body,
    );
    model.onChange(() => this.rebuild());
    market.subscribe(() => frames.schedule('watchlist', () => this.refresh()));
    this.rebuild();
  }

  private rebuild(): void {
    this.rows.clear();
    this.body.replaceChildren(...this.model.symbols().map((symbol) => this.row(symbol)));
    this.refresh();
  }

  private row(symbol: string): HTMLElement {
    const last = el('span', { class: 'num watch-last' });
    const change = el('span', { class: 'num watch-change' });
    const element = el(
      'div',
      {
        class: 'watch-row',
        title: `Show ${symbol} on the main chart`,
        attrs: { role: 'listitem', 'data-symbol': symbol },
      },
      [
        el('span', { class: 'watch-symbol' }, [
          el('span', { class: 'watch-ticker', text: symbol }),
          el('span', { class: 'watch-name', text: this.market.spec(symbol)?.name ?? '' }),
        ]),
        last,
        change,
      ],
    );
    element.addEventListener('click', () => this.onPick(symbol));
    this.rows.set(symbol, { element, last, change, price: this.market.lastPrice(symbol) });
    return element;
  }

  private refresh(): void {
    let moved = false;
    for (const [symbol, row] of this.rows) {
      const spec = this.market.spec(symbol);
      if (!spec) continue;
      const price = this.market.lastPrice(symbol);
      const day = this.market.dayChange(symbol);
      setText(row.last, formatDisplayPrice(price, spec.decimals));
      setText(row.change, formatPercent(day.changePercent));
      row.change.classList.toggle('up', day.change >= 0);
      row.change.classList.toggle('down', day.change < 0);
      if (price !== row.price) {
        this.flash(row, price > row.price);
        moved = true;
      }
      row.price = price;
    }
    // One timer per refresh, not one per moved price: each setTimeout/clearTimeout pair costs the page ~20 µs, and
    // the last one set in a refresh decided when every tint came off anyway.
    if (moved) {
      clearTimeout(this.unflash);
      this.unflash = setTimeout(() => {
        for (const last of this.flashing) last.classList.remove('flash');
        this.flashing.clear();
      }, FLASH_MS);
    }
  }

  private flash(row: Row, up: boolean): void {
    row.last.classList.toggle('up', up);
    row.last.classList.toggle('down', !up);
    row.last.classList.add('flash');
    this.flashing.add(row.last);
  }
}
