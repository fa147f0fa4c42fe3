/**
 * The order ticket: the person's orders go through the same paper broker
 * and the same workflow as an agent's: preview, review, place the preview's
 * arguments unchanged. Any edit after a preview discards it. A working limit
 * order from the blotter can be modified here (with a new client id).
 */
import type { PaperBroker } from '../broker/paperBroker.js';
import type { ModifyPreview, OrderPreview } from '../broker/results.js';
import type { Order } from '../broker/schemas.js';
import type { MarketSimulator } from '../market/simulator.js';
import { el, setText } from '../ui/dom.js';
import type { FrameBatcher } from '../ui/frameBatcher.js';
import { countdown, showDecimal } from '../ui/display.js';
import { StatusLine } from '../ui/feedback.js';
import { TicketForm, type OrderType, type Side } from './ticketForm.js';
import { button } from '../ui/widgets.js';

/** What clicking a ladder level or a position puts on the ticket. */
export interface TicketPrefill {
  accountId?: string;
  symbol?: string;
  side?: Side;
  type?: OrderType;
  limitPrice?: string;
  quantity?: string;
}

type Preview = { kind: 'new'; value: OrderPreview } | { kind: 'modify'; value: ModifyPreview };
const PERSON = { source: 'person' as const };

/** The order ticket panel. */
export class OrderTicket {
  private readonly form: TicketForm;
  private readonly modeBar = el('div', { class: 'ticket-mode', attrs: { hidden: '' } });
  private readonly card = el('div', { class: 'preview-card', attrs: { hidden: '', 'data-testid': 'ticket-preview' } });
  private readonly previewButton = button('Preview order', 'primary wide', 'ticket-preview-button');
  private readonly placeButton = button('Place', 'wide', 'ticket-place-button');
  private readonly editButton = button('Edit', 'ghost', 'ticket-edit-button');
  private readonly status = new StatusLine();
  private modifying: Order | null = null;
  private preview: Preview | null = null;
  private busy = false;

  constructor(
    root: HTMLElement,
    private readonly broker: PaperBroker,
    private readonly market: MarketSimulator,
    frames: FrameBatcher,
  ) {
    this.form = new TicketForm(broker.view.accountIds(), market, () => this.edited());
    const actions = el('div', { class: 'ticket-actions' }, [this.previewButton, this.placeButton, this.editButton]);
    root.replaceChildren(this.modeBar, this.form.element, this.card, actions, this.status.element);
    this.previewButton.addEventListener('click', () => void this.requestPreview());
    this.placeButton.addEventListener('click', () => void this.place());
    this.editButton.addEventListener('click', () => this.discard(''));
    market.subscribe(() => frames.schedule('ticket', () => this.tick()));
    this.paint();
  }

  /** Fills the ticket (a ladder level, a position to close); any preview is discarded. */
  prefill(values: TicketPrefill): void {
    this.endModify();
    if (values.accountId) this.form.account.value = values.accountId;
    if (values.symbol) this.form.symbol.value = values.symbol;
    if (values.side) this.form.side.set(values.side);
    if (values.type) this.form.type.set(values.type, true);
    if (values.limitPrice !== undefined) this.form.limit.value = values.limitPrice;
    if (values.quantity !== undefined) this.form.quantity.value = values.quantity;
    this.form.renewClientId();
    this.edited();
  }

  /** Loads a working limit order for modification, with a new client order id. */
  startModify(order: Order): void {
    this.modifying = order;
    this.form.account.value = order.accountId;
    this.form.symbol.value = order.symbol;
    this.form.side.set(order.side);
    this.form.type.set('limit', true);
    this.form.quantity.value = order.quantity;
    this.form.limit.value = order.limitPrice ?? '';
    this.form.renewClientId();
    this.form.lockForModify(true);
    const back = button('New order', 'link');
    back.addEventListener('click', () => {
      this.endModify();
      this.edited();
    });
    this.modeBar.replaceChildren(el('span', { text: `Modify ${order.orderId} · ${order.side} ${order.symbol}` }), back);
    this.modeBar.hidden = false;
    this.discard('');
  }

  private endModify(): void {
    if (!this.modifying) return;
    this.modifying = null;
    this.modeBar.hidden = true;
    this.form.lockForModify(false);
  }

  private edited(): void {
    this.form.refreshPrices();
    if (this.preview) this.discard('Changed after the preview: preview again.');
    else this.paint();
  }

  private discard(message: string): void {
    this.preview = null;
    this.status.show(message, 'info');
    this.paint();
  }

  private async requestPreview(): Promise<void> {
    const read = this.form.read();
    if ('problem' in read) return this.status.show(read.problem, 'warn');
    await this.run(async () => {
      const { request } = read;
      const order = this.modifying;
      if (order) {
        const change = {
          accountId: order.accountId,
          orderId: order.orderId,
          clientOrderId: request.clientOrderId,
          quantity: request.quantity,
          limitPrice: request.limitPrice ?? '',
        };
        this.preview = { kind: 'modify', value: await this.broker.previewModify(change, PERSON) };
      } else {
        this.preview = { kind: 'new', value: await this.broker.previewOrder(request, PERSON) };
      }
      this.status.show('Review the preview, then place it unchanged.', 'info');
    });
  }

  private async place(): Promise<void> {
    const preview = this.preview;
    if (!preview) return;
    await this.run(async () => {
      if (preview.kind === 'new') {
        const ack = await this.broker.placeOrder(preview.value.placementArguments, PERSON);
        this.status.show(`Accepted ${ack.orderId} (${ack.clientOrderId}). Fills appear in the blotter.`, 'ok');
      } else {
        const ack = await this.broker.modifyOrder(preview.value.placementArguments, PERSON);
        this.status.show(`Modified ${ack.orderId} (${ack.clientOrderId}).`, 'ok');
        this.endModify();
      }
      this.preview = null;
      this.form.renewClientId();
    }, true);
  }

  /** Runs one broker request with the buttons locked; a failure discards the preview. */
  private async run(work: () => Promise<void>, placing = false): Promise<void> {
    this.busy = true;
    this.paint();
    try {
      await work();
    } catch (error) {
      if (placing) this.preview = null;
      this.status.failure(error);
    } finally {
      this.busy = false;
      this.paint();
    }
  }

  private tick(): void {
    this.form.refreshPrices();
    if (this.preview) this.paintExpiry();
  }

  private paint(): void {
    const preview = this.preview;
    this.card.hidden = !preview;
    this.previewButton.hidden = Boolean(preview);
    this.placeButton.hidden = !preview;
    this.editButton.hidden = !preview;
    this.previewButton.disabled = this.busy;
    this.placeButton.disabled = this.busy;
    setText(this.previewButton, this.modifying ? 'Preview change' : 'Preview order');
    if (!preview) return;
    const args = preview.value.placementArguments;
    const side = this.form.side.value;
    this.placeButton.className = `btn wide ${side}`;
    setText(
      this.placeButton,
      preview.kind === 'modify'
        ? `Apply change · ${args.quantity} @ ${args.limitPrice}`
        : `Place ${side} ${args.quantity} ${this.form.symbol.value}`,
    );
    this.paintCard(preview);
  }

  private paintCard(preview: Preview): void {
    const v = preview.value;
    const decimals = this.market.spec(this.form.symbol.value)?.decimals ?? 2;
    const costLabel = this.form.side.value === 'buy' ? 'Est. cost' : 'Est. proceeds';
    const row = (label: string, value: string): HTMLElement =>
      el('div', { class: 'kv' }, [el('span', { text: label }), el('span', { class: 'num', text: value })]);
    this.card.replaceChildren(
      row('Reference', showDecimal(v.referencePrice, decimals)),
      row(costLabel, `${showDecimal(v.estimatedCost)} USDT · fee ${showDecimal(v.estimatedFee, 4)}`),
      el('div', { class: 'kv expiry' }, [
        el('span', { text: v.previewId }),
        el('span', { class: 'num', attrs: { 'data-role': 'expiry' } }),
      ]),
      ...v.warnings.map((w) => el('div', { class: 'warning', text: w })),
    );
    this.paintExpiry();
  }

  private paintExpiry(): void {
    if (!this.preview) return;
    const left = Date.parse(this.preview.value.expiresAt) - this.broker.clock.now();
    const node = this.card.querySelector('[data-role="expiry"]');
    if (node) setText(node, left > 0 ? `expires in ${countdown(left)}` : 'expired: preview again');
    this.placeButton.disabled = this.busy || left <= 0;
  }
}
