/**
 * The FX quote widget: ask the desk for a quote, watch its five-minute
 * window run down, confirm it. A soft refusal or an unpriceable pair shows
 * the desk's message; an expired quote (410) or a rate that drifted (409,
 * with original and new rate and tolerance) asks for a new quote.
 */
import { isBrokerError } from '../broker/errors.js';
import type { FxQuote } from '../broker/fxDesk.js';
import { QUOTE_TTL_MS } from '../broker/fxDesk.js';
import type { PaperBroker } from '../broker/paperBroker.js';
import type { MarketSimulator } from '../market/simulator.js';
import { el, setText } from '../ui/dom.js';
import type { FrameBatcher } from '../ui/frameBatcher.js';
import { countdown, showDecimal } from '../ui/display.js';
import { StatusLine } from '../ui/feedback.js';
import { button, decimalInput, select } from '../ui/widgets.js';

/** The FX quote panel. */
export class FxQuoteView {
  private readonly from: HTMLSelectElement;
  private readonly to: HTMLSelectElement;
  private readonly amount = decimalInput('amount');
  private readonly indicative = el('div', { class: 'fx-indicative num' });
  private readonly quoteButton = button('Get quote', 'primary wide', 'fx-get-quote');
  private readonly card = el('div', { class: 'fx-card', attrs: { hidden: '', 'data-testid': 'fx-quote-card' } });
  private readonly timer = el('span', { class: 'num fx-timer' });
  private readonly bar = el('span', { class: 'fx-bar-fill' });
  private readonly confirmButton = button('Confirm', 'buy', 'fx-confirm');
  private readonly status = new StatusLine();
  private quote: FxQuote | null = null;
  private busy = false;

  constructor(
    root: HTMLElement,
    private readonly broker: PaperBroker,
    market: MarketSimulator,
    frames: FrameBatcher,
  ) {
    const currencies = broker.view.currencies();
    this.from = select([...currencies, 'GBP'], 'EUR');
    this.to = select([...currencies, 'GBP'], 'USD');
    this.amount.value = '1000';
    const swap = button('⇄', 'icon', 'fx-swap');
    swap.title = 'Swap currencies';
    swap.addEventListener('click', () => {
      [this.from.value, this.to.value] = [this.to.value, this.from.value];
      this.edited();
    });
    const discard = button('Discard', 'ghost');
    discard.addEventListener('click', () => this.drop(''));
    this.card.append(
      el('div', { class: 'fx-quote-body' }),
      el('div', { class: 'fx-bar' }, [this.bar]),
      el('div', { class: 'fx-actions' }, [this.timer, el('span', { class: 'spacer' }), discard, this.confirmButton]),
    );
    root.replaceChildren(
      el('div', { class: 'fx-row' }, [this.from, this.amount, swap, this.to]),
      this.indicative,
      this.quoteButton,
      this.card,
      this.status.element,
    );
    for (const input of [this.from, this.to, this.amount]) input.addEventListener('input', () => this.edited());
    this.quoteButton.addEventListener('click', () => void this.requestQuote());
    this.confirmButton.addEventListener('click', () => void this.confirm());
    // The countdown moves with each EURUSD tick (every 500 ms); the timer only when the market stands still,
    // so it adds no frame of its own to the terminal's.
    let lastTick = -Infinity;
    market.subscribe((tick) => {
      if (tick.symbol !== 'EURUSD') return;
      lastTick = performance.now();
      frames.schedule('fx', () => this.tick());
    });
    setInterval(() => {
      if (performance.now() - lastTick > 1000) frames.schedule('fx', () => this.tick());
    }, 1000);
    this.tick();
  }

  private edited(): void {
    if (this.quote) this.drop('Changed: get a new quote.');
    this.tick();
  }

  private drop(message: string): void {
    this.quote = null;
    this.card.hidden = true;
    this.indicative.hidden = false;
    this.quoteButton.hidden = false;
    this.status.show(message, 'info');
  }

  private tick(): void {
    const rate = this.broker.view.fxRate(this.from.value, this.to.value);
    setText(
      this.indicative,
      rate
        ? `Indicative ${this.from.value}/${this.to.value} ${rate}`
        : `${this.from.value}/${this.to.value}: not quoted by the desk`,
    );
    if (!this.quote) return;
    const left = Date.parse(this.quote.expiresAt) - this.broker.clock.now();
    setText(this.timer, left > 0 ? `${countdown(left)} left` : 'Expired');
    this.bar.style.width = `${Math.max(0, Math.min(100, (left / QUOTE_TTL_MS) * 100))}%`;
    this.bar.classList.toggle('low', left < 60_000);
    this.confirmButton.disabled = this.busy;
  }

  private async requestQuote(): Promise<void> {
    const amount = this.amount.value.trim().replace(/,/g, '');
    if (!/^\d{1,18}(\.\d{1,12})?$/.test(amount)) return this.status.show('Enter an amount such as 1000.', 'warn');
    await this.run(async () => {
      const answer = await this.broker.getQuote(
        { from: this.from.value, to: this.to.value, amount },
        { source: 'person' },
      );
      if (!answer.success) return this.status.show(answer.message, 'warn');
      if (answer.rate === '' || answer.finalAmount === '') {
        return this.status.show(
          `The desk cannot price ${answer.pair} right now. Try later or pick another pair.`,
          'warn',
        );
      }
      this.quote = { ...answer, rate: answer.rate, finalAmount: answer.finalAmount };
      this.showQuote(this.quote);
      this.status.show('Confirm before it expires; the desk trades at the live rate within tolerance.', 'info');
    });
  }

  private showQuote(quote: FxQuote): void {
    const [from = '', to = ''] = quote.pair.split('/');
    const body = this.card.querySelector('.fx-quote-body');
    body?.replaceChildren(
      el('div', { class: 'kv' }, [
        el('span', { text: `${quote.quoteId} · ${quote.pair}` }),
        el('span', { class: 'num strong', text: quote.rate }),
      ]),
      el('div', { class: 'kv' }, [
        el('span', { text: `Sell ${showDecimal(quote.amount)} ${from}` }),
        el('span', { class: 'num strong up', text: `${showDecimal(quote.finalAmount)} ${to}` }),
      ]),
    );
    this.card.hidden = false;
    this.indicative.hidden = true;
    this.quoteButton.hidden = true;
    this.tick();
  }

  private async confirm(): Promise<void> {
    const quote = this.quote;
    if (!quote) return;
    await this.run(async () => {
      try {
        const trade = await this.broker.confirmQuote({ quoteId: quote.quoteId }, { source: 'person' });
        this.drop('');
        this.status.show(`${trade.tradeId}: sold ${trade.amount} for ${trade.finalAmount} at ${trade.rate}.`, 'ok');
      } catch (error) {
        this.drop('');
        if (isBrokerError(error) && error.drift) {
          const d = error.drift;
          return this.status.show(
            `409 rate moved ${d.originalPrice} → ${d.newPrice} (tolerance ${d.tolerance}). Get a new quote.`,
            'error',
          );
        }
        if (isBrokerError(error) && error.status === 410)
          return this.status.show('410 quote expired. Get a new quote.', 'error');
        throw error;
      }
    });
  }

  private async run(work: () => Promise<void>): Promise<void> {
    this.busy = true;
    this.quoteButton.disabled = true;
    this.tick();
    try {
      await work();
    } catch (error) {
      this.status.failure(error);
    } finally {
      this.busy = false;
      this.quoteButton.disabled = false;
      this.tick();
    }
  }
}
