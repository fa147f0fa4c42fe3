/**
 * Exact decimal arithmetic for money: values are BigInt counts of 10^-12
 * units, so "0.1" + "0.2" is exactly "0.3". Strings in and out have at most
 * 18 integer and 12 fraction digits (the wire's DecimalSchema).
 */

/** Fraction digits held exactly. */
export const SCALE = 12;
const ONE = 10n ** BigInt(SCALE);
const PATTERN = /^(-)?(\d{1,18})(?:\.(\d{1,12}))?$/;

/** An exact decimal: an integer count of 10^-12 units. */
export type Units = bigint;

/** True when `text` is a decimal string the broker accepts. */
export function isDecimal(text: string): boolean {
  return PATTERN.test(text);
}

/** Parses a decimal string; throws on anything else. */
export function parseDecimal(text: string): Units {
  const match = PATTERN.exec(text);
  if (!match) throw new RangeError('Not a decimal string.');
  const [, sign, whole = '0', fraction = ''] = match;
  const units = BigInt(whole) * ONE + BigInt(fraction.padEnd(SCALE, '0'));
  return sign ? -units : units;
}

/** Fraction digits a decimal string carries ("0.250" → 3). */
export function fractionDigits(text: string): number {
  const dot = text.indexOf('.');
  return dot < 0 ? 0 : text.length - dot - 1;
}

/** Divides with rounding half away from zero. */
function divRound(numerator: bigint, denominator: bigint): bigint {
  const negative = numerator < 0n !== denominator < 0n;
  const n = numerator < 0n ? -numerator : numerator;
  const d = denominator < 0n ? -denominator : denominator;
  const quotient = (n + d / 2n) / d;
  return negative ? -quotient : quotient;
}

/** Rounds to `decimals` fraction digits, half away from zero. */
export function roundTo(units: Units, decimals: number): Units {
  const step = 10n ** BigInt(SCALE - decimals);
  return divRound(units, step) * step;
}

/** Rounds towards zero to `decimals` fraction digits (quantities never round up). */
export function truncateTo(units: Units, decimals: number): Units {
  const step = 10n ** BigInt(SCALE - decimals);
  return (units / step) * step;
}

/** Formats exactly, trimming trailing zeros but keeping at least `minFraction` digits. */
export function formatDecimal(units: Units, minFraction = 0): string {
  const negative = units < 0n;
  const abs = negative ? -units : units;
  const whole = abs / ONE;
  let fraction = (abs % ONE).toString().padStart(SCALE, '0').replace(/0+$/, '');
  if (fraction.length < minFraction) fraction = fraction.padEnd(minFraction, '0');
  const text = fraction ? `${whole}.${fraction}` : `${whole}`;
  return negative && abs !== 0n ? `-${text}` : text;
}

/** Rounds half away from zero and prints exactly `decimals` fraction digits. */
export function formatFixed(units: Units, decimals: number): string {
  const rounded = roundTo(units, decimals);
  const text = formatDecimal(rounded, decimals);
  const dot = text.indexOf('.');
  return dot < 0 || text.length - dot - 1 === decimals ? text : text.slice(0, dot + 1 + decimals);
}

/** a × b, rounded half away from zero to 12 fraction digits. */
export function mul(a: Units, b: Units): Units {
  return divRound(a * b, ONE);
}

/** a ÷ b, rounded half away from zero to 12 fraction digits. */
export function div(a: Units, b: Units): Units {
  if (b === 0n) throw new RangeError('Division by zero.');
  return divRound(a * ONE, b);
}

/** The absolute value. */
export function abs(a: Units): Units {
  return a < 0n ? -a : a;
}

/** The smaller of two values. */
export function min(a: Units, b: Units): Units {
  return a < b ? a : b;
}

/** A whole number of units of 10^-decimals, e.g. `step(2)` is "0.01". */
export function step(decimals: number): Units {
  return 10n ** BigInt(SCALE - decimals);
}

/** True when `units` sits on the grid of `decimals` fraction digits. */
export function onGrid(units: Units, decimals: number): boolean {
  return units % step(decimals) === 0n;
}

/** A JS number, for display and charts only (never for money). */
export function toNumber(units: Units): number {
  return Number(formatDecimal(units));
}
