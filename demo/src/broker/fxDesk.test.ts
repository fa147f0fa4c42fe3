import { describe, expect, it } from 'vitest';
import { BrokerError } from './errors.js';
import { brokerFixture } from '../testing/brokerFixture.js';

async function failure(promise: Promise<unknown>): Promise<BrokerError> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof BrokerError) return error;
    throw error;
  }
  throw new Error('expected a broker error');
}

describe('FX/OTC desk (reference 002: soft failures, 410, 409)', () => {
  it('quotes for five minutes and confirms within them, moving both balances exactly', async () => {
    const { broker } = brokerFixture();
    const quote = await broker.getQuote({ from: 'EUR', to: 'USD', amount: '1000' });
    if (!quote.success) throw new Error('expected a quote');
    // EURUSD mid 1.085015, less the 15 bp desk spread, to 6 places.
    expect(quote).toMatchObject({ pair: 'EUR/USD', rate: '1.083387', amount: '1000.00', finalAmount: '1083.38' });
    expect(Date.parse(quote.expiresAt) - Date.UTC(2026, 0, 5, 12)).toBe(300_000);
    const trade = await broker.confirmQuote({ quoteId: quote.quoteId });
    expect(trade).toMatchObject({ quoteId: quote.quoteId, rate: '1.083387', finalAmount: '1083.38' });
    const balances = broker.view.accounts()[0]?.balances;
    expect(balances).toContainEqual({ currency: 'EUR', amount: '4000' });
    expect(balances).toContainEqual({ currency: 'USD', amount: '21083.38' });
    expect((await failure(broker.confirmQuote({ quoteId: quote.quoteId }))).code).toBe('QUOTE_ALREADY_CONFIRMED');
  });

  it('answers 410 QUOTE_EXPIRED once five minutes passed (injected clock)', async () => {
    const { broker, clock } = brokerFixture();
    const quote = await broker.getQuote({ from: 'USD', to: 'EUR', amount: '500' });
    if (!quote.success) throw new Error('expected a quote');
    clock.advance(299_999);
    const early = await broker.getQuote({ from: 'USD', to: 'EUR', amount: '500' });
    clock.advance(1);
    const error = await failure(broker.confirmQuote({ quoteId: quote.quoteId }));
    expect([error.status, error.code]).toEqual([410, 'QUOTE_EXPIRED']);
    if (!early.success) throw new Error('expected a quote');
    await expect(broker.confirmQuote({ quoteId: early.quoteId })).resolves.toMatchObject({ quoteId: early.quoteId });
  });

  it('answers 409 PRICE_DRIFT_EXCEEDED with original and new price and tolerance when the live rate moved', async () => {
    const { broker, market } = brokerFixture();
    const quote = await broker.getQuote({ from: 'EUR', to: 'USD', amount: '100' });
    if (!quote.success) throw new Error('expected a quote');
    market.set('EURUSD', '1.09000', '1.09003');
    const error = await failure(broker.confirmQuote({ quoteId: quote.quoteId }));
    expect([error.status, error.code]).toEqual([409, 'PRICE_DRIFT_EXCEEDED']);
    expect(error.drift).toEqual({ originalPrice: '1.083387', newPrice: '1.088380', tolerance: '0.0025' });
    expect(error.message).toMatch(/tolerance=0\.0025/);
    expect(broker.view.accounts()[0]?.balances).toContainEqual({ currency: 'EUR', amount: '5000' });
  });

  it('refuses softly: insufficient balance, unsupported pair, amount out of range; unpriced means an empty rate', async () => {
    const { broker } = brokerFixture();
    expect(await broker.getQuote({ from: 'EUR', to: 'USD', amount: '6000' })).toMatchObject({
      success: false,
      reason: 'insufficient-balance',
    });
    expect(await broker.getQuote({ from: 'GBP', to: 'USD', amount: '100' })).toMatchObject({
      success: false,
      reason: 'unsupported-pair',
    });
    expect(await broker.getQuote({ from: 'USD', to: 'EUR', amount: '5' })).toMatchObject({
      success: false,
      reason: 'amount-out-of-range',
    });
    broker.faults.add({ kind: 'unpriced', scope: 'fx.getQuote' });
    expect(await broker.getQuote({ from: 'USD', to: 'EUR', amount: '50' })).toMatchObject({
      success: true,
      rate: '',
      finalAmount: '',
    });
  });
});
