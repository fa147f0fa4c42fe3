/**
 * The instruments the simulated market quotes, with the few facts the
 * simulation and formatting need.
 */

/** One simulated instrument. */
export interface SymbolSpec {
  /** Exchange-style ticker, e.g. `BTCUSDT`. */
  readonly symbol: string;
  /** What a person reads, e.g. `Bitcoin / Tether`. */
  readonly name: string;
  /** Where the random walk starts and drifts back towards. */
  readonly basePrice: number;
  /** Price decimals; the tick is 10^-decimals. */
  readonly decimals: number;
  /** Standard deviation of the log price over one minute. */
  readonly volatility: number;
  /** Quoted spread in ticks. */
  readonly spreadTicks: number;
  /** Typical volume per minute, in base units. */
  readonly volumeScale: number;
}

/** Every instrument of the demo market, in watchlist order. */
export const SYMBOLS: readonly SymbolSpec[] = [
  {
    symbol: 'BTCUSDT',
    name: 'Bitcoin / Tether',
    basePrice: 67250,
    decimals: 2,
    volatility: 0.0011,
    spreadTicks: 2,
    volumeScale: 14,
  },
  {
    symbol: 'ETHUSDT',
    name: 'Ether / Tether',
    basePrice: 3420,
    decimals: 2,
    volatility: 0.0014,
    spreadTicks: 2,
    volumeScale: 180,
  },
  {
    symbol: 'SOLUSDT',
    name: 'Solana / Tether',
    basePrice: 152.4,
    decimals: 3,
    volatility: 0.0019,
    spreadTicks: 3,
    volumeScale: 2400,
  },
  {
    symbol: 'BNBUSDT',
    name: 'BNB / Tether',
    basePrice: 588.1,
    decimals: 2,
    volatility: 0.0012,
    spreadTicks: 2,
    volumeScale: 420,
  },
  {
    symbol: 'XRPUSDT',
    name: 'XRP / Tether',
    basePrice: 0.5231,
    decimals: 4,
    volatility: 0.0016,
    spreadTicks: 1,
    volumeScale: 520000,
  },
  {
    symbol: 'DOGEUSDT',
    name: 'Dogecoin / Tether',
    basePrice: 0.15872,
    decimals: 5,
    volatility: 0.0021,
    spreadTicks: 2,
    volumeScale: 1900000,
  },
  {
    symbol: 'EURUSD',
    name: 'Euro / US Dollar',
    basePrice: 1.0852,
    decimals: 5,
    volatility: 0.00018,
    spreadTicks: 3,
    volumeScale: 2500000,
  },
  {
    symbol: 'XAUUSD',
    name: 'Gold / US Dollar',
    basePrice: 2331.5,
    decimals: 2,
    volatility: 0.0004,
    spreadTicks: 25,
    volumeScale: 900,
  },
];

/** The instrument with this ticker, if the market quotes it. */
export function findSymbol(symbol: string, symbols: readonly SymbolSpec[] = SYMBOLS): SymbolSpec | undefined {
  return symbols.find((spec) => spec.symbol === symbol);
}

/** A price as a decimal string with the instrument's precision. */
export function formatPrice(spec: SymbolSpec, price: number): string {
  return price.toFixed(spec.decimals);
}

/** Rounds a price to the instrument's tick. */
export function roundToTick(spec: SymbolSpec, price: number): number {
  const factor = 10 ** spec.decimals;
  return Math.round(price * factor) / factor;
}
