/**
 * Exact display of broker decimals: rounding and grouping work on the
 * decimal string itself (never a float), e.g. "67250.017" → "67,250.02".
 */
import { formatFixed, isDecimal, parseDecimal } from '../broker/decimal.js';

/** A decimal string rounded to `decimals` places with thousands separators; "—" for nothing. */
export function showDecimal(text: string | null | undefined, decimals = 2): string {
  if (!text || !isDecimal(text)) return '—';
  const fixed = formatFixed(parseDecimal(text), decimals);
  const negative = fixed.startsWith('-');
  const [whole = '0', fraction] = (negative ? fixed.slice(1) : fixed).split('.');
  const grouped = whole.replace(/\B(?=(\d{3})+(?!\d))/g, ',');
  return `${negative ? '-' : ''}${grouped}${fraction ? `.${fraction}` : ''}`;
}

/** A signed amount, e.g. "+12.50" or "-3.10", and its tone. */
export function showSigned(text: string, decimals = 2): { text: string; tone: 'up' | 'down' | '' } {
  const shown = showDecimal(text, decimals);
  if (shown.startsWith('-')) return { text: shown, tone: 'down' };
  return /[1-9]/.test(shown) ? { text: `+${shown}`, tone: 'up' } : { text: shown, tone: '' };
}

/** Decimals a quantity shows with: the digits it carries, at least `min`. */
export function quantityDecimals(text: string, min = 0): number {
  const dot = text.indexOf('.');
  return Math.max(min, dot < 0 ? 0 : text.length - dot - 1);
}

/** "HH:MM:SS" of an ISO time. */
export function clockTime(iso: string): string {
  return iso.slice(11, 19);
}

/** "m:ss" of a duration. */
export function countdown(ms: number): string {
  const seconds = Math.max(0, Math.ceil(ms / 1000));
  return `${Math.floor(seconds / 60)}:${String(seconds % 60).padStart(2, '0')}`;
}
