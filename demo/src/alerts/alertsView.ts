/**
 * The alerts panel: price alerts with their state, selection for a batch
 * delete (whose partial result names each id that stayed and why), and a
 * small form to add one.
 */
import type { Alert } from '../broker/alertBook.js';
import type { PaperBroker } from '../broker/paperBroker.js';
import type { MarketSimulator } from '../market/simulator.js';
import { el, setText } from '../ui/dom.js';
import type { FrameBatcher } from '../ui/frameBatcher.js';
import { showDecimal } from '../ui/display.js';
import { StatusLine } from '../ui/feedback.js';
import { button, decimalInput, select } from '../ui/widgets.js';

/** The alerts panel. */
export class AlertsView {
  private readonly list = el('div', { class: 'alert-list', attrs: { 'data-testid': 'alert-list' } });
  private readonly selected = new Set<number>();
  private readonly deleteButton = button('Delete', 'mini danger', 'alerts-delete');
  private readonly count = el('span', { class: 'panel-tag' });
  private readonly status = new StatusLine();
  private readonly symbol: HTMLSelectElement;
  private readonly condition = select([
    { value: 'above', label: '≥' },
    { value: 'below', label: '≤' },
  ]);
  private readonly price = decimalInput('price');

  constructor(
    root: HTMLElement,
    header: HTMLElement,
    private readonly broker: PaperBroker,
    private readonly market: MarketSimulator,
    frames: FrameBatcher,
  ) {
    this.symbol = select(
      market.symbols().map((s) => s.symbol),
      'BTCUSDT',
    );
    this.symbol.className = this.condition.className = 'field-input compact';
    this.condition.title = 'Triggers when the last price is at or above / at or below';
    header.append(el('span', { class: 'spacer' }), this.count, this.deleteButton);
    const add = button('Add', 'mini primary', 'alerts-add');
    const form = el('div', { class: 'alert-form' }, [this.symbol, this.condition, this.price, add]);
    root.replaceChildren(this.list, form, this.status.element);
    this.deleteButton.addEventListener('click', () => void this.deleteSelected());
    add.addEventListener('click', () => void this.add());
    this.symbol.addEventListener('change', () => (this.price.value = ''));
    broker.events.onChange((kind) => {
      if (kind === 'alerts') frames.schedule('alerts', () => this.render());
    });
    this.render();
  }

  private render(): void {
    const alerts = this.broker.view.alerts();
    for (const id of this.selected) if (!alerts.some((a) => a.alertId === id)) this.selected.delete(id);
    const active = alerts.filter((a) => a.status === 'active').length;
    setText(this.count, `${active} active`);
    this.list.replaceChildren(
      ...(alerts.length ? alerts.map((a) => this.row(a)) : [el('div', { class: 'empty-note', text: 'No alerts.' })]),
    );
    this.paintDelete();
  }

  private row(alert: Alert): HTMLElement {
    const decimals = this.market.spec(alert.symbol)?.decimals ?? 2;
    const box = el('input', { attrs: { type: 'checkbox', 'aria-label': `Select alert ${alert.alertId}` } });
    box.checked = this.selected.has(alert.alertId);
    box.addEventListener('change', () => {
      if (box.checked) this.selected.add(alert.alertId);
      else this.selected.delete(alert.alertId);
      this.paintDelete();
    });
    const state = alert.status === 'triggered' ? 'Triggered' : 'Active';
    return el(
      'label',
      {
        class: `alert-row ${alert.status}`,
        attrs: { 'data-alert-id': String(alert.alertId) },
        title: alert.note ?? '',
      },
      [
        box,
        el('span', { class: 'alert-id num', text: `#${alert.alertId}` }),
        el('span', { class: 'alert-symbol' }, [
          alert.symbol,
          ...(alert.locked
            ? [
                el('span', {
                  class: 'alert-lock',
                  text: 'LOCKED',
                  title: 'Kept by the risk desk: it cannot be deleted',
                }),
              ]
            : []),
        ]),
        el('span', {
          class: 'num alert-level',
          text: `${alert.condition === 'above' ? '≥' : '≤'} ${showDecimal(alert.price, decimals)}`,
        }),
        el('span', { class: `alert-state ${alert.status}`, title: state, attrs: { 'aria-label': state } }),
      ],
    );
  }

  private paintDelete(): void {
    this.deleteButton.disabled = this.selected.size === 0;
    setText(this.deleteButton, this.selected.size > 0 ? `Delete ${this.selected.size}` : 'Delete');
  }

  private async deleteSelected(): Promise<void> {
    const ids = [...this.selected];
    try {
      const result = await this.broker.deleteAlerts(ids, { op: 'alerts.delete', source: 'person' });
      const deleted = result.deleted.map((id) => `#${id}`).join(', ') || 'none';
      if (result.failedAlerts.length === 0) this.status.show(`Deleted ${deleted}.`, 'ok');
      else {
        const failed = result.failedAlerts
          .map((f) => `#${f.alertId} ${f.reason.replace(/\.$/, '').toLowerCase()}`)
          .join('; ');
        this.status.show(`Deleted ${deleted}. Not deleted: ${failed}.`, 'warn');
      }
      for (const id of result.deleted) this.selected.delete(id);
    } catch (error) {
      this.status.failure(error);
    }
    this.render();
  }

  private async add(): Promise<void> {
    const price = this.price.value.trim().replace(/,/g, '');
    if (!/^\d{1,18}(\.\d{1,12})?$/.test(price)) return this.status.show('Enter a price for the alert.', 'warn');
    const condition = this.condition.value === 'below' ? 'below' : 'above';
    try {
      const alert = await this.broker.createAlert(
        { symbol: this.symbol.value, condition, price },
        { source: 'person' },
      );
      this.status.show(`Alert #${alert.alertId} added.`, 'ok');
      this.price.value = '';
    } catch (error) {
      this.status.failure(error);
    }
  }
}
