/**
 * The terms a client order id was used for (SPEC §5): what a placement or a
 * modification asked the broker for, kept with the id when the broker accepts
 * it. Reconciliation proves an uncertain attempt happened only when the id's
 * use has the attempt's own terms; the same id with other terms proves nothing.
 * Decimals are compared as numbers ("0.0010" is "0.001").
 */
import { formatDecimal, parseDecimal, type Units } from './decimal.js';

/** The terms of one use of a client order id. */
export interface OrderTerms {
  readonly kind: 'place' | 'modify';
  readonly accountId: string;
  /** Placements: the instrument, side and type. */
  readonly symbol?: string;
  readonly side?: string;
  readonly type?: string;
  /** Modifications: the order changed. */
  readonly orderId?: string;
  readonly quantity: string;
  /** Null for a market order. */
  readonly price: string | null;
}

/** The terms of an accepted placement. */
export function placementTerms(order: {
  accountId: string;
  symbol: string;
  side: string;
  type: string;
  quantity: Units;
  limitPrice: Units | null;
}): OrderTerms {
  return {
    kind: 'place',
    accountId: order.accountId,
    symbol: order.symbol,
    side: order.side,
    type: order.type,
    quantity: formatDecimal(order.quantity),
    price: order.limitPrice === null ? null : formatDecimal(order.limitPrice),
  };
}

/** The terms of an accepted modification. */
export function modificationTerms(change: {
  accountId: string;
  orderId: string;
  quantity: Units;
  limitPrice: Units;
}): OrderTerms {
  return {
    kind: 'modify',
    accountId: change.accountId,
    orderId: change.orderId,
    quantity: formatDecimal(change.quantity),
    price: formatDecimal(change.limitPrice),
  };
}

function decimalOrNull(value: unknown): string | null | undefined {
  if (value === undefined) return null;
  if (typeof value !== 'string') return undefined;
  try {
    return formatDecimal(parseDecimal(value));
  } catch {
    return undefined;
  }
}

const text = (value: unknown): string | undefined => (typeof value === 'string' ? value : undefined);

/**
 * The terms an attempt asked for, read from its recorded request (a
 * placement's, a ladder order's, or a modification's arguments); null when
 * they cannot be read. Fields the request does not carry are left out (a
 * ladder order names no symbol: the ladder's at the time).
 */
export function requestedTerms(kind: OrderTerms['kind'], request: unknown): Partial<OrderTerms> | null {
  if (typeof request !== 'object' || request === null) return null;
  const r = request as Record<string, unknown>;
  const quantity = decimalOrNull(r['quantity']);
  const price = decimalOrNull(r['limitPrice'] ?? r['price']);
  const accountId = text(r['accountId']);
  if (quantity == null || price === undefined || accountId === undefined) return null;
  const terms: Record<string, unknown> = { kind, accountId, quantity, price };
  for (const key of ['symbol', 'side', 'type', 'orderId'] as const) if (text(r[key]) !== undefined) terms[key] = r[key];
  // A ladder order is a limit order at its level price.
  if (kind === 'place' && r['price'] !== undefined && r['type'] === undefined) terms['type'] = 'limit';
  return terms as Partial<OrderTerms>;
}

/** The fields in which a use's terms differ from what the attempt asked for (empty: the same request). */
export function differingTerms(requested: Partial<OrderTerms>, used: OrderTerms): string[] {
  return (Object.keys(requested) as Array<keyof OrderTerms>).filter((key) => requested[key] !== used[key]);
}
