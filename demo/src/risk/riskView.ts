/**
 * The risk panel: each account's equity, cash and gross exposure, and an
 * emergency flatten per account behind a confirm step (it cancels every
 * working order and closes every position at market; it cannot be undone).
 */
import type { AccountSummary } from '../broker/schemas.js';
import type { PaperBroker } from '../broker/paperBroker.js';
import { div, mul, parseDecimal } from '../broker/decimal.js';
import type { MarketSimulator } from '../market/simulator.js';
import { el, setText } from '../ui/dom.js';
import type { FrameBatcher } from '../ui/frameBatcher.js';
import { showDecimal, showSigned } from '../ui/display.js';
import { StatusLine } from '../ui/feedback.js';
import { button } from '../ui/widgets.js';

interface Card {
  element: HTMLElement;
  equity: HTMLElement;
  cash: HTMLElement;
  exposure: HTMLElement;
  share: HTMLElement;
  pnl: HTMLElement;
  orders: HTMLElement;
  meter: HTMLElement;
  actions: HTMLElement;
}

/** The risk panel. */
export class RiskView {
  private readonly cards = new Map<string, Card>();
  private readonly status = new StatusLine();
  private confirming: string | null = null;

  constructor(
    root: HTMLElement,
    private readonly broker: PaperBroker,
    market: MarketSimulator,
    private readonly frames: FrameBatcher,
  ) {
    const cards = broker.view.accountIds().map((id) => this.card(id));
    root.replaceChildren(...cards, this.status.element);
    const schedule = (): void => frames.schedule('risk', () => this.refresh());
    market.subscribe(schedule);
    broker.events.onChange(schedule);
    this.refresh();
  }

  private card(accountId: string): HTMLElement {
    const value = (): HTMLElement => el('span', { class: 'num' });
    const card: Card = {
      element: el('div', {
        class: 'risk-card',
        attrs: { 'data-account': accountId, 'data-testid': `risk-${accountId}` },
      }),
      equity: value(),
      cash: value(),
      exposure: value(),
      share: value(),
      pnl: value(),
      // An empty title from the start, as every paint left it before (an empty title hides an ancestor's tooltip).
      orders: el('span', { class: 'risk-counts', attrs: { title: '' } }),
      meter: el('span', { class: 'meter-fill' }),
      actions: el('div', { class: 'risk-actions' }),
    };
    const stat = (label: string, node: HTMLElement): HTMLElement =>
      el('div', { class: 'stat' }, [el('span', { class: 'stat-label', text: label }), node]);
    card.equity.className = 'num risk-equity';
    card.equity.title = 'Equity (USDT)';
    card.element.append(
      el('div', { class: 'risk-title' }, [
        el('span', { class: 'num strong', text: accountId }),
        el('span', { class: 'muted risk-name' }),
        card.equity,
      ]),
      el('div', { class: 'risk-grid' }, [
        stat('Cash', card.cash),
        stat('Exposure', card.exposure),
        stat('Realized', card.pnl),
      ]),
      el('div', { class: 'meter-row', title: 'Gross exposure as a share of equity' }, [
        el('div', { class: 'meter' }, [card.meter]),
        card.share,
      ]),
      el('div', { class: 'risk-foot' }, [card.orders, card.actions]),
    );
    this.cards.set(accountId, card);
    return card.element;
  }

  private refresh(): void {
    for (const summary of this.broker.view.accounts()) {
      const card = this.cards.get(summary.accountId);
      if (card) this.paint(card, summary);
    }
  }

  private paint(card: Card, a: AccountSummary): void {
    const name = card.element.querySelector('.risk-name');
    if (name) setText(name, a.name);
    setText(card.equity, showDecimal(a.equity));
    setText(card.cash, showDecimal(a.cash));
    const equity = parseDecimal(a.equity);
    const share = equity > 0n ? div(parseDecimal(a.grossExposure), equity) : 0n;
    const percent = Number(mul(share, parseDecimal('100')) / 10n ** 10n) / 100;
    setText(card.exposure, showDecimal(a.grossExposure));
    setText(card.share, `${percent.toFixed(1)}% of equity`);
    const pnl = showSigned(a.realizedPnl);
    setText(card.pnl, pnl.text);
    // Class and title only when they change: writing the same value still queues a mutation and dirties style.
    const pnlClass = `num ${pnl.tone}`;
    if (card.pnl.className !== pnlClass) card.pnl.className = pnlClass;
    card.meter.style.width = `${Math.min(percent, 100)}%`;
    card.meter.classList.toggle('hot', percent >= 50);
    const positions = this.broker.view.positions(a.accountId).length;
    const confirming = this.confirming === a.accountId;
    card.orders.classList.toggle('warn', confirming);
    setText(
      card.orders,
      confirming ? `Cancel ${a.openOrders}, sell ${positions}?` : `Orders ${a.openOrders} · Positions ${positions}`,
    );
    const warning = confirming
      ? `Cancels ${a.openOrders} open order(s) and sells ${positions} position(s) at market. It cannot be undone.`
      : '';
    if (card.orders.title !== warning) card.orders.title = warning;
    this.paintActions(card, a);
  }

  private paintActions(card: Card, a: AccountSummary): void {
    const state = this.confirming === a.accountId ? 'confirm' : 'idle';
    if (card.actions.dataset['state'] === state) return;
    card.actions.dataset['state'] = state;
    if (state === 'idle') {
      const flatten = button('Emergency flatten', 'flatten', `flatten-${a.accountId}`);
      flatten.addEventListener('click', () => this.ask(a.accountId));
      card.actions.replaceChildren(flatten);
      return;
    }
    const confirm = button('Confirm', 'flatten armed', `flatten-confirm-${a.accountId}`);
    confirm.addEventListener('click', () => void this.flatten(a.accountId));
    const keep = button('Keep', 'ghost mini');
    keep.addEventListener('click', () => this.ask(null));
    card.actions.replaceChildren(confirm, keep);
  }

  private ask(accountId: string | null): void {
    this.confirming = accountId;
    this.status.clear();
    this.frames.schedule('risk', () => this.refresh());
  }

  private async flatten(accountId: string): Promise<void> {
    this.confirming = null;
    try {
      const result = await this.broker.flatten({ accountId }, { source: 'person' });
      this.status.show(
        `${result.emergencyId}: ${result.cancelledOrderIds.length} cancelled, ${result.closingOrders.length} closing at market.`,
        'ok',
      );
    } catch (error) {
      this.status.failure(error);
    }
    this.refresh();
  }
}
