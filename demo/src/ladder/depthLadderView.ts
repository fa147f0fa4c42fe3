/**
 * The depth ladder panel: simulated size at the levels around the touch of
 * the ladder's symbol, the accounts' own working quantity per level, and the
 * spread. Clicking a bid level prefills a limit buy at that price on the
 * ticket; an ask level, a limit sell.
 */
import type { PaperBroker } from '../broker/paperBroker.js';
import type { DepthLevel } from '../broker/results.js';
import { formatDecimal, parseDecimal } from '../broker/decimal.js';
import type { MarketSimulator } from '../market/simulator.js';
import { el, setText } from '../ui/dom.js';
import type { FrameBatcher } from '../ui/frameBatcher.js';
import type { LadderModel } from './ladderModel.js';
import { instrumentOf } from '../broker/instruments.js';
import { showDecimal } from '../ui/display.js';
import type { TicketPrefill } from '../orders/orderTicket.js';
import { select } from '../ui/widgets.js';
import { LEVELS_PER_SIDE, levelsThatFit } from './levelsThatFit.js';

interface Row {
  element: HTMLElement;
  /** The size cells; each holds the bar and a text span. */
  bid: HTMLElement;
  price: HTMLElement;
  ask: HTMLElement;
  bidText: HTMLElement;
  askText: HTMLElement;
  own: HTMLElement;
  bar: HTMLElement;
  level: DepthLevel | null;
  /** The pointer is over the row, or it has focus: only then does it carry its `title`. */
  hovered: boolean;
  focused: boolean;
}

/** The depth ladder panel body. */
export class DepthLadderView {
  private readonly rows: Row[] = [];
  /**
   * The spread's text sits in a span of its own: the snapshot engine counts a text write as a change to the
   * written element's parent's whole subtree (sibling selectors), so a write straight into the spread row
   * marked every ladder row changed at each tick (issue 15); in the span it marks the spread row alone.
   */
  private readonly spreadText = el('span');
  private readonly spread = el('div', { class: 'ladder-spread num', attrs: { 'data-testid': 'ladder-spread' } }, [
    this.spreadText,
  ]);

  constructor(
    root: HTMLElement,
    header: HTMLElement,
    private readonly broker: PaperBroker,
    private readonly market: MarketSimulator,
    private readonly ladder: LadderModel,
    frames: FrameBatcher,
    private readonly onPick: (prefill: TicketPrefill) => void,
  ) {
    const picker = select(
      market.symbols().map((s) => s.symbol),
      ladder.symbol(),
    );
    picker.className = 'ladder-symbol';
    picker.dataset['testid'] = 'ladder-symbol';
    picker.title = 'Symbol shown on the ladder';
    picker.addEventListener('change', () => ladder.setSymbol(picker.value));
    ladder.onChange((symbol) => {
      picker.value = symbol;
      this.refresh();
    });
    header.querySelector('h2')?.after(picker);
    const columns = el('div', { class: 'ladder-columns' }, [
      el('span', { text: 'Bid size' }),
      el('span', { text: 'Price' }),
      el('span', { text: 'Ask size' }),
    ]);
    const asks = Array.from({ length: LEVELS_PER_SIDE }, () => this.row());
    const bids = Array.from({ length: LEVELS_PER_SIDE }, () => this.row());
    const box = el('div', { class: 'ladder-rows' }, [
      ...asks.map((r) => r.element),
      this.spread,
      ...bids.map((r) => r.element),
    ]);
    root.replaceChildren(columns, box);
    // Only when the box's size changes (the window, the desk's layout), never per tick.
    new ResizeObserver(() => this.fit(box)).observe(box);
    market.subscribe((tick) => {
      if (tick.symbol === ladder.symbol()) frames.schedule('ladder', () => this.refresh());
    });
    broker.events.onChange((kind) => {
      if (kind === 'orders') frames.schedule('ladder', () => this.refresh());
    });
    this.refresh();
  }

  private row(): Row {
    const bidText = el('span');
    const askText = el('span');
    const cells = {
      bid: el('span', { class: 'num bid' }, [bidText]),
      price: el('span', { class: 'num price' }),
      ask: el('span', { class: 'num ask' }, [askText]),
    };
    const own = el('span', { class: 'own num' });
    const bar = el('span', { class: 'depth-bar' });
    const element = el('div', { class: 'ladder-row', attrs: { role: 'button', tabindex: '0' } }, [
      cells.bid,
      cells.price,
      cells.ask,
      own,
    ]);
    const row: Row = { element, ...cells, bidText, askText, own, bar, level: null, hovered: false, focused: false };
    const pick = (): void => this.pick(row);
    element.addEventListener('click', pick);
    element.addEventListener('keydown', (event) => {
      if (event.key === 'Enter' || event.key === ' ') pick();
    });
    // The title names the row's price, which moves with nearly every tick; a title change recalculates the
    // row's style (the UA sheet's `abbr[title]` makes `title` a style-affecting attribute). So a row carries
    // it only while under the pointer (the tooltip) or focused; assistive technology reads the same words from
    // the row's `aria-description`, kept current at every tick (see paintDescription).
    const track = (key: 'hovered' | 'focused', on: boolean) => (): void => {
      row[key] = on;
      this.paintTitle(row);
    };
    element.addEventListener('pointerenter', track('hovered', true));
    element.addEventListener('pointerleave', track('hovered', false));
    element.addEventListener('focus', track('focused', true));
    element.addEventListener('blur', track('focused', false));
    this.rows.push(row);
    return row;
  }

  /**
   * Shows as many levels as the rows box holds, the same number each side and
   * those nearest the touch first, so the spread stays in the middle and no
   * row is cut or drawn over the column headings (12 rows and the spread
   * need about 210 px; at 1280×720 the box has about 150). Every row is
   * still painted each tick: a hidden row's level shows again when the
   * box grows.
   */
  private fit(box: HTMLElement): void {
    // The nearest ask is never hidden, so it measures a row.
    const rowHeight = this.rows[LEVELS_PER_SIDE - 1]?.element.offsetHeight ?? 0;
    if (rowHeight === 0) return;
    const perSide = levelsThatFit(box.clientHeight, this.spread.offsetHeight, rowHeight);
    this.rows.forEach((row, index) => {
      const fromTouch = index < LEVELS_PER_SIDE ? LEVELS_PER_SIDE - 1 - index : index - LEVELS_PER_SIDE;
      const hidden = fromTouch >= perSide;
      if (row.element.hidden !== hidden) row.element.hidden = hidden;
    });
  }

  private pick(row: Row): void {
    const level = row.level;
    if (!level) return;
    this.onPick({
      symbol: this.ladder.symbol(),
      side: level.side === 'bid' ? 'buy' : 'sell',
      type: 'limit',
      limitPrice: level.price,
    });
  }

  private refresh(): void {
    const symbol = this.ladder.symbol();
    const spec = this.market.spec(symbol);
    if (!spec) return;
    const depth = this.broker.view.depth(symbol, LEVELS_PER_SIDE);
    const max = depth.levels.reduce((m, l) => (parseDecimal(l.size) > m ? parseDecimal(l.size) : m), 1n);
    const sizeDecimals = Math.min(instrumentOf(spec).quantityDecimals, 4);
    depth.levels.forEach((level, index) => {
      const row = this.rows[index];
      if (row) this.paintRow(row, level, spec.decimals, sizeDecimals, max);
    });
    const spread = parseDecimal(depth.bestAsk) - parseDecimal(depth.bestBid);
    setText(
      this.spreadText,
      `${showDecimal(depth.bestBid, spec.decimals)} · spread ${showDecimal(formatDecimal(spread), spec.decimals)} · ${showDecimal(depth.bestAsk, spec.decimals)}`,
    );
  }

  private paintRow(row: Row, level: DepthLevel, decimals: number, sizeDecimals: number, max: bigint): void {
    row.level = level;
    const size = showDecimal(level.size, sizeDecimals);
    setText(row.bidText, level.side === 'bid' ? size : '');
    setText(row.askText, level.side === 'ask' ? size : '');
    const cell = level.side === 'bid' ? row.bid : row.ask;
    if (row.bar.parentElement !== cell) cell.prepend(row.bar);
    setText(row.price, showDecimal(level.price, decimals));
    const own = parseDecimal(level.ownQuantity);
    setText(row.own, own > 0n ? showDecimal(level.ownQuantity, 4).replace(/\.?0+$/, '') : '');
    // Attributes only when they change: a write of the same value still invalidates the row's style.
    if (row.element.dataset['side'] !== level.side) row.element.dataset['side'] = level.side;
    row.element.classList.toggle('has-own', own > 0n);
    this.paintDescription(row);
    row.bar.style.width = `${Number((parseDecimal(level.size) * 100n) / max)}%`;
  }

  /**
   * What a click or Enter on the row does, for assistive technology at all times: `aria-description`, which no
   * selector reads, so rewriting it as the price moves restyles nothing. Screen readers browsing the ladder without
   * focusing a row read it there; the title (the tooltip) follows only while someone can see it.
   */
  private paintDescription(row: Row): void {
    const description = describe(row.level);
    if (row.element.getAttribute('aria-description') !== description) {
      row.element.setAttribute('aria-description', description);
    }
    this.paintTitle(row);
  }

  /** The row's title while it is hovered or focused (the same words as its description), none otherwise. */
  private paintTitle(row: Row): void {
    const title = row.hovered || row.focused ? describe(row.level) : '';
    if (row.element.title === title) return;
    if (title) row.element.title = title;
    else row.element.removeAttribute('title');
  }
}

/** What picking a row at this level does; empty for a row with no level yet. */
function describe(level: DepthLevel | null): string {
  return level ? `${level.side === 'bid' ? 'Buy' : 'Sell'} limit at ${level.price}: prefill the ticket` : '';
}
