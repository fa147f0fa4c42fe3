/**
 * The alerts a fresh paper broker starts with, placed around the market's
 * current prices (so the same seed gives the same alerts). The last one is
 * locked by the risk desk: deleting it always fails, which makes a partial
 * deletion easy to see.
 */
import type { AlertBook } from './alertBook.js';
import { formatDecimal, mul, parseDecimal, roundTo } from './decimal.js';
import type { PriceSource } from './instruments.js';

const SEEDS = [
  { symbol: 'BTCUSDT', condition: 'above', factor: '1.02', note: 'Breakout watch' },
  { symbol: 'BTCUSDT', condition: 'below', factor: '0.98', note: null },
  { symbol: 'ETHUSDT', condition: 'above', factor: '1.03', note: null },
  { symbol: 'SOLUSDT', condition: 'below', factor: '0.96', note: 'Add on dip' },
  { symbol: 'XAUUSD', condition: 'below', factor: '0.985', note: 'Risk desk: gold hedge', locked: true },
] as const;

/** Creates the starting alerts for the symbols the market quotes. */
export function seedAlerts(book: AlertBook, market: PriceSource): void {
  for (const seed of SEEDS) {
    const spec = market.spec(seed.symbol);
    if (!spec) continue;
    const price = roundTo(mul(parseDecimal(market.quote(seed.symbol).last), parseDecimal(seed.factor)), spec.decimals);
    book.create(
      {
        symbol: seed.symbol,
        condition: seed.condition,
        price: formatDecimal(price),
        ...(seed.note ? { note: seed.note } : {}),
      },
      'locked' in seed && seed.locked,
    );
  }
}
