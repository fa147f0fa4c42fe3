/**
 * The order ticket's inputs: account, symbol, side (with live touch
 * prices), type, quantity, limit price and client order id. It reads them
 * into a broker request and says which field is wrong, if one is.
 */
import { isDecimal } from '../broker/decimal.js';
import type { OrderRequest } from '../broker/schemas.js';
import type { MarketSimulator } from '../market/simulator.js';
import { el, setText } from '../ui/dom.js';
import { newClientOrderId } from './clientIds.js';
import { showDecimal } from '../ui/display.js';
import { button, decimalInput, field, Segmented, select } from '../ui/widgets.js';

/** Side and type of a ticket. */
export type Side = OrderRequest['side'];
/** Market or limit. */
export type OrderType = OrderRequest['type'];

const POSITIVE = /^\d{1,18}(\.\d{1,12})?$/;

/** The ticket's form. */
export class TicketForm {
  readonly element: HTMLElement;
  readonly account: HTMLSelectElement;
  readonly symbol: HTMLSelectElement;
  readonly side: Segmented<Side>;
  readonly type: Segmented<OrderType>;
  readonly quantity = decimalInput('0.01');
  readonly limit = decimalInput('price');
  readonly clientId = el('input', {
    class: 'field-input num',
    attrs: { maxlength: '20', autocomplete: 'off', spellcheck: 'false' },
  });
  private readonly limitField: HTMLLabelElement;

  /** `onEdit` runs after every change a person makes. */
  constructor(
    accounts: readonly string[],
    private readonly market: MarketSimulator,
    private readonly onEdit: () => void,
  ) {
    this.account = select(accounts, accounts[0]);
    this.symbol = select(
      market.symbols().map((s) => s.symbol),
      'BTCUSDT',
    );
    const edit = (): void => this.onEdit();
    this.side = new Segmented<Side>(
      [
        { value: 'buy', label: 'Buy', className: 'buy' },
        { value: 'sell', label: 'Sell', className: 'sell' },
      ],
      'buy',
      edit,
      'ticket-side',
    );
    this.type = new Segmented<OrderType>(
      [
        { value: 'market', label: 'Market' },
        { value: 'limit', label: 'Limit' },
      ],
      'limit',
      () => {
        this.paintType();
        edit();
      },
      'ticket-type',
    );
    this.limitField = field('Limit', this.limit, 'ticket-limit');
    const regenerate = button('↻', 'icon', 'ticket-new-id');
    regenerate.title = 'New client order id';
    regenerate.addEventListener('click', () => {
      this.renewClientId();
      edit();
    });
    this.element = el('div', { class: 'ticket-form' }, [
      el('div', { class: 'row two' }, [
        field('Acct', this.account, 'ticket-account'),
        field('Symbol', this.symbol, 'ticket-symbol'),
      ]),
      this.side.element,
      el('div', { class: 'row two' }, [this.type.element, field('Qty', this.quantity, 'ticket-quantity')]),
      el('div', { class: 'row two' }, [
        this.limitField,
        el('div', { class: 'id-field' }, [field('ID', this.clientId, 'ticket-client-id'), regenerate]),
      ]),
    ]);
    for (const input of [this.account, this.symbol, this.quantity, this.limit, this.clientId])
      input.addEventListener('input', edit);
    this.quantity.value = '0.01';
    this.renewClientId();
    this.paintType();
    this.refreshPrices();
  }

  /** Shows the live touch on the side buttons. */
  refreshPrices(): void {
    const symbol = this.symbol.value;
    const spec = this.market.spec(symbol);
    if (!spec) return;
    const quote = this.market.quote(symbol);
    const buy = this.side.button('buy');
    const sell = this.side.button('sell');
    if (buy) setText(buy, `Buy ${showDecimal(quote.ask, spec.decimals)}`);
    if (sell) setText(sell, `Sell ${showDecimal(quote.bid, spec.decimals)}`);
  }

  /** A fresh client order id (every new order and modification needs one). */
  renewClientId(): void {
    this.clientId.value = newClientOrderId();
  }

  /** Locks what a modification cannot change. */
  lockForModify(locked: boolean): void {
    this.account.disabled = locked;
    this.symbol.disabled = locked;
    this.side.setDisabled(locked);
    this.type.setDisabled(locked);
  }

  /** The request the form describes, or the reason it cannot be sent. */
  read(): { request: OrderRequest } | { problem: string } {
    const quantity = this.quantity.value.trim();
    const limitPrice = this.limit.value.trim().replace(/,/g, '');
    const clientOrderId = this.clientId.value.trim();
    if (!POSITIVE.test(quantity) || !isDecimal(quantity)) return { problem: 'Enter a quantity such as 0.01.' };
    if (this.type.value === 'limit' && !POSITIVE.test(limitPrice)) return { problem: 'Enter a limit price.' };
    if (!/^[A-Za-z0-9]{1,20}$/.test(clientOrderId)) return { problem: 'The client id is 1–20 letters or digits.' };
    const base = {
      accountId: this.account.value,
      symbol: this.symbol.value,
      side: this.side.value,
      quantity,
      clientOrderId,
    };
    return {
      request: this.type.value === 'limit' ? { ...base, type: 'limit', limitPrice } : { ...base, type: 'market' },
    };
  }

  private paintType(): void {
    const market = this.type.value === 'market';
    this.limit.disabled = market;
    this.limitField.classList.toggle('disabled', market);
    if (market) this.limit.value = '';
    else if (!this.limit.value) {
      const spec = this.market.spec(this.symbol.value);
      if (spec) this.limit.value = this.market.quote(this.symbol.value)[this.side.value === 'buy' ? 'bid' : 'ask'];
    }
  }
}
