/**
 * The blotter: orders (with cancel and modify), positions (with close) and
 * fills, live. The person's cancel goes through the same broker; its answer
 * says only that the cancel was requested, since a fill may still win.
 */
import type { PaperBroker } from '../broker/paperBroker.js';
import type { Order } from '../broker/schemas.js';
import type { MarketSimulator } from '../market/simulator.js';
import { el, setText } from '../ui/dom.js';
import type { FrameBatcher } from '../ui/frameBatcher.js';
import { clockTime, showDecimal, showSigned } from '../ui/display.js';
import { StatusLine } from '../ui/feedback.js';
import type { TicketPrefill } from './orderTicket.js';
import { button } from '../ui/widgets.js';

type Tab = 'orders' | 'positions' | 'fills';
const MAX_ROWS = 100;
const OPEN = new Set<Order['status']>(['new', 'working', 'partiallyFilled']);
const STATUS_LABEL: Readonly<Record<Order['status'], string>> = {
  new: 'New',
  working: 'Working',
  partiallyFilled: 'Part filled',
  filled: 'Filled',
  cancelled: 'Cancelled',
  rejected: 'Rejected',
};

/** What the blotter asks of the rest of the terminal. */
export interface BlotterActions {
  prefill(values: TicketPrefill): void;
  modify(order: Order): void;
}

/** The blotter panel. */
export class BlotterView {
  private tab: Tab = 'orders';
  private readonly tabs = new Map<Tab, HTMLButtonElement>();
  private readonly table = el('table', { class: 'blotter-table', attrs: { 'data-testid': 'blotter-table' } });
  private readonly status = new StatusLine();

  constructor(
    root: HTMLElement,
    header: HTMLElement,
    private readonly broker: PaperBroker,
    private readonly market: MarketSimulator,
    private readonly frames: FrameBatcher,
    private readonly actions: BlotterActions,
  ) {
    const tabs = (['orders', 'positions', 'fills'] as const).map((tab) => {
      const node = el('button', { class: 'tab', attrs: { type: 'button', 'data-testid': `blotter-tab-${tab}` } });
      node.addEventListener('click', () => this.show(tab));
      this.tabs.set(tab, node);
      return node;
    });
    header.replaceChildren(...tabs, el('span', { class: 'spacer' }), this.status.element);
    root.replaceChildren(this.table);
    broker.events.onChange(() => this.schedule());
    market.subscribe(() => {
      if (this.tab === 'positions') this.schedule();
    });
    this.render();
  }

  private show(tab: Tab): void {
    this.tab = tab;
    this.render();
  }

  private schedule(): void {
    this.frames.schedule('blotter', () => this.render());
  }

  private render(): void {
    const open = this.broker.view.orders().filter((o) => OPEN.has(o.status)).length;
    const positions = this.broker.view.positions().length;
    const labels: Record<Tab, string> = {
      orders: `Orders ${open ? `(${open})` : ''}`,
      positions: `Positions (${positions})`,
      fills: 'Fills',
    };
    for (const [tab, node] of this.tabs) {
      setText(node, labels[tab].trim());
      node.classList.toggle('active', tab === this.tab);
    }
    if (this.tab === 'orders') this.renderOrders();
    else if (this.tab === 'positions') this.renderPositions();
    else this.renderFills();
  }

  private renderOrders(): void {
    const orders = this.broker.view.orders().reverse().slice(0, MAX_ROWS);
    const head = [
      'Time',
      'Account',
      'Symbol',
      'Side',
      'Type',
      'Qty',
      'Filled',
      'Limit',
      'Avg fill',
      'Status',
      'Via',
      '',
    ];
    this.fill(
      head,
      orders.map((o) => this.orderRow(o)),
      'No orders yet: use the ticket or the ladder.',
    );
  }

  private orderRow(order: Order): HTMLTableRowElement {
    const decimals = this.market.spec(order.symbol)?.decimals ?? 2;
    const actions = el('td', { class: 'actions' });
    if (OPEN.has(order.status) && !order.cancelRequested) {
      if (order.type === 'limit') actions.append(this.action('Modify', () => this.actions.modify(order)));
      actions.append(this.action('Cancel', () => void this.cancel(order), 'danger'));
    }
    const status = order.cancelRequested && OPEN.has(order.status) ? 'Cancelling' : STATUS_LABEL[order.status];
    const row = el('tr', { attrs: { 'data-order-id': order.orderId, 'data-status': order.status } }, [
      cell(clockTime(order.createdAt)),
      cell(order.accountId),
      cell(order.symbol, 'strong'),
      cell(order.side === 'buy' ? 'Buy' : 'Sell', order.side === 'buy' ? 'up' : 'down'),
      cell(order.type === 'limit' ? 'Limit' : 'Market'),
      cell(order.quantity, 'num'),
      cell(order.filledQuantity, 'num'),
      cell(order.limitPrice ? showDecimal(order.limitPrice, decimals) : '—', 'num'),
      cell(order.averageFillPrice ? showDecimal(order.averageFillPrice, decimals) : '—', 'num'),
      el('td', {}, [el('span', { class: `pill status-${order.status}`, text: status, title: order.message ?? '' })]),
      cell(order.source === 'agent' ? 'MCP' : order.source === 'system' ? 'Risk' : 'You', 'muted'),
      actions,
    ]);
    row.title = `${order.orderId} · ${order.clientOrderId}`;
    return row;
  }

  private renderPositions(): void {
    const rows = this.broker.view.positions().map((p) => {
      const decimals = this.market.spec(p.symbol)?.decimals ?? 2;
      const pnl = showSigned(p.unrealizedPnl);
      const close = this.action('Close', () =>
        this.actions.prefill({
          accountId: p.accountId,
          symbol: p.symbol,
          side: 'sell',
          type: 'market',
          quantity: p.quantity,
        }),
      );
      close.title = 'Put a market sell for the whole position on the ticket';
      return el('tr', {}, [
        cell(p.accountId),
        cell(p.symbol, 'strong'),
        cell(p.quantity, 'num'),
        cell(showDecimal(p.averagePrice, decimals), 'num'),
        cell(showDecimal(p.markPrice, decimals), 'num'),
        cell(showDecimal(p.marketValue), 'num'),
        cell(pnl.text, `num ${pnl.tone}`),
        el('td', { class: 'actions' }, [close]),
      ]);
    });
    this.fill(
      ['Account', 'Symbol', 'Qty', 'Avg price', 'Mark', 'Value (USDT)', 'Unrealized P&L', ''],
      rows,
      'No open positions.',
    );
  }

  private renderFills(): void {
    const rows = this.broker.view
      .fills()
      .reverse()
      .slice(0, MAX_ROWS)
      .map((f) => {
        const decimals = this.market.spec(f.symbol)?.decimals ?? 2;
        return el('tr', {}, [
          cell(clockTime(f.time)),
          cell(f.accountId),
          cell(f.symbol, 'strong'),
          cell(f.side === 'buy' ? 'Buy' : 'Sell', f.side === 'buy' ? 'up' : 'down'),
          cell(f.quantity, 'num'),
          cell(showDecimal(f.price, decimals), 'num'),
          cell(showDecimal(f.fee, 4), 'num'),
          cell(f.orderId, 'muted'),
          cell(f.clientOrderId, 'muted'),
        ]);
      });
    this.fill(
      ['Time', 'Account', 'Symbol', 'Side', 'Qty', 'Price', 'Fee', 'Order', 'Client ID'],
      rows,
      'No fills yet.',
    );
  }

  private fill(head: readonly string[], rows: HTMLTableRowElement[], empty: string): void {
    const thead = el('thead', {}, [
      el(
        'tr',
        {},
        head.map((h) => el('th', { text: h })),
      ),
    ]);
    const body =
      rows.length > 0
        ? rows
        : [el('tr', { class: 'empty' }, [el('td', { text: empty, attrs: { colspan: String(head.length) } })])];
    this.table.replaceChildren(thead, el('tbody', {}, body));
  }

  private action(text: string, run: () => void, tone = ''): HTMLButtonElement {
    const node = button(text, `mini ${tone}`);
    node.addEventListener('click', run);
    return node;
  }

  private async cancel(order: Order): Promise<void> {
    try {
      await this.broker.cancelOrder({ accountId: order.accountId, orderId: order.orderId }, { source: 'person' });
      this.status.show(`Cancel requested for ${order.orderId}; a fill may still win.`, 'info');
    } catch (error) {
      this.status.failure(error);
    }
  }
}

function cell(text: string, className = ''): HTMLTableCellElement {
  return el('td', { class: className, text });
}
