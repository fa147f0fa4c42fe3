/**
 * Hand-rolled projections of the built-in channels' events (`data.quotes`,
 * `trading.events`): the same answer as {@link projectWithSchema} with their
 * zod schemas, without zod's per-parse allocations, because quotes arrive at
 * tens of thousands per second. A property test (fastProjection.test.ts)
 * proves each equal to the schema projection on arbitrary input. Under limits
 * lowered below {@link FAST_MIN_STRING_LENGTH} they defer to the schema path.
 */
import { TRADING_EVENT_TYPES } from '../../protocol/channels.js';
import { isRecord } from '../../protocol/record.js';
import { DROP_INVALID, DROP_OVERSIZED, fitsEvent, type EventBounds, type Projection } from './projection.js';
import { redactJson, redactString } from '../dispatch/redact.js';

/** The fast paths run only when every key and decimal fits this string limit. */
export const FAST_MIN_STRING_LENGTH = 64;

/** `DecimalSchema` of src/protocol/channels.ts, as a plain pattern. */
const DECIMAL = /^-?\d{1,18}(\.\d{1,12})?$/;
/** A string redaction would change: edge or non-space whitespace, or a whitespace run. */
const NEEDS_NORMALIZING = /^\s|\s$|[^\S ]|\s\s/;
const BROKER_TEXT_MAX = 1000;

/** The redacted form of a string, skipping the work when it is already normal. */
function redacted(text: string): string | null {
  return text.length <= BROKER_TEXT_MAX && !NEEDS_NORMALIZING.test(text) ? text : redactString(text);
}

function isDecimal(value: unknown): value is string {
  return typeof value === 'string' && DECIMAL.test(value);
}

/** Only declared keys, as zod's strict object sees them (`for…in`, inherited ones too). */
function onlyKeys(raw: Record<string, unknown>, keys: ReadonlySet<string>): boolean {
  for (const key in raw) if (!keys.has(key)) return false;
  return true;
}

/**
 * Whether a flat payload fits the size cap: decided from its string lengths
 * when clearly under (a UTF-16 unit is at most 6 bytes of JSON, escaped), else
 * measured exactly. `skeleton` is the JSON of the object with every value
 * replaced by a 4-byte `null`.
 */
function fitsFlat(payload: object, skeleton: number, textUnits: number, bounds: EventBounds): boolean {
  return skeleton + 6 * textUnits <= bounds.maxBytes || fitsEvent(payload, bounds);
}

function skeletonOf(keys: readonly string[]): number {
  return JSON.stringify(Object.fromEntries(keys.map((k) => [k, null]))).length;
}

function fastBounds(bounds: EventBounds): boolean {
  return bounds.depth >= 1 && bounds.stringLength >= FAST_MIN_STRING_LENGTH;
}

const QUOTE_KEY_LIST = ['symbol', 'bid', 'ask', 'last', 'time'] as const;
const QUOTE_KEYS: ReadonlySet<string> = new Set(QUOTE_KEY_LIST);
const QUOTE_SKELETON = skeletonOf(QUOTE_KEY_LIST);

/**
 * `data.quotes`; returns null when the bounds are below the fast path's
 * domain (the caller then uses the schema projection).
 */
export function projectQuote(raw: unknown, bounds: EventBounds): Projection | null {
  if (!fastBounds(bounds)) return null;
  if (!isRecord(raw) || !onlyKeys(raw, QUOTE_KEYS)) return DROP_INVALID;
  const { symbol, bid, ask, last, time } = raw;
  if (typeof symbol !== 'string' || typeof time !== 'string') return DROP_INVALID;
  if (!isDecimal(bid) || !isDecimal(ask) || !isDecimal(last)) return DROP_INVALID;
  if (symbol.length > bounds.stringLength || time.length > bounds.stringLength) return DROP_OVERSIZED;
  const payload = { symbol: redacted(symbol), bid, ask, last, time: redacted(time) };
  const units = symbol.length + bid.length + ask.length + last.length + time.length;
  return fitsFlat(payload, QUOTE_SKELETON, units, bounds) ? payload : DROP_OVERSIZED;
}

const TRADING_TYPES: ReadonlySet<string> = new Set(TRADING_EVENT_TYPES);

/** Free-text optional fields of a trading event, in schema order around the typed ones. */
const TEXT_FIELDS = ['accountId', 'orderId', 'clientOrderId', 'symbol'] as const;
const TAIL_TEXT_FIELDS = ['chartId', 'lineId'] as const;
const TRADING_KEY_LIST = [
  'type',
  'time',
  ...TEXT_FIELDS,
  'side',
  'quantity',
  'price',
  'status',
  ...TAIL_TEXT_FIELDS,
  'message',
] as const;
const TRADING_KEYS: ReadonlySet<string> = new Set(TRADING_KEY_LIST);
const TRADING_SKELETON = skeletonOf(TRADING_KEY_LIST);

const isText = (v: unknown) => v === undefined || typeof v === 'string';
const isSide = (v: unknown) => v === undefined || v === 'buy' || v === 'sell';
const isOptionalDecimal = (v: unknown) => v === undefined || isDecimal(v);

function validTradingEvent(raw: Record<string, unknown>): boolean {
  if (typeof raw['type'] !== 'string' || !TRADING_TYPES.has(raw['type']) || typeof raw['time'] !== 'string') {
    return false;
  }
  for (const field of TEXT_FIELDS) if (!isText(raw[field])) return false;
  for (const field of TAIL_TEXT_FIELDS) if (!isText(raw[field])) return false;
  const { status, message } = raw;
  if (!isSide(raw['side']) || !isOptionalDecimal(raw['quantity']) || !isOptionalDecimal(raw['price'])) return false;
  if (status !== undefined && (typeof status !== 'string' || status.length > 64)) return false;
  return message === undefined || message === null || (typeof message === 'string' && message.length <= 1000);
}

/** The longest string value, and the total length of all of them. */
function textStats(raw: Record<string, unknown>): { longest: number; total: number } {
  let longest = 0;
  let total = 0;
  for (const key of TRADING_KEY_LIST) {
    const value = raw[key];
    if (typeof value !== 'string') continue;
    total += value.length;
    if (value.length > longest) longest = value.length;
  }
  return { longest, total };
}

/** Copies defined fields in schema order, redacting free text; blank broker text becomes null. */
function tradingPayload(raw: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = { type: raw['type'], time: redacted(raw['time'] as string) };
  for (const field of TEXT_FIELDS) if (raw[field] !== undefined) out[field] = redacted(raw[field] as string);
  if (raw['side'] !== undefined) out['side'] = raw['side'];
  if (raw['quantity'] !== undefined) out['quantity'] = raw['quantity'];
  if (raw['price'] !== undefined) out['price'] = raw['price'];
  if (raw['status'] !== undefined) out['status'] = redacted(raw['status'] as string);
  for (const field of TAIL_TEXT_FIELDS) if (raw[field] !== undefined) out[field] = redacted(raw[field] as string);
  const message = raw['message'];
  if (message !== undefined) out['message'] = typeof message === 'string' ? redacted(message) || null : null;
  return out;
}

/** `trading.events`; null when the bounds are below the fast path's domain. */
export function projectTradingEvent(raw: unknown, bounds: EventBounds): Projection | null {
  if (!fastBounds(bounds)) return null;
  if (!isRecord(raw) || !onlyKeys(raw, TRADING_KEYS) || !validTradingEvent(raw)) return DROP_INVALID;
  const text = textStats(raw);
  if (text.longest > bounds.stringLength) return DROP_OVERSIZED;
  const payload = tradingPayload(raw);
  return fitsFlat(payload, TRADING_SKELETON, text.total, bounds) ? payload : DROP_OVERSIZED;
}

/** The reference redaction of a trading event: every string, then blank broker text as null (SPEC §4). */
export function redactTradingEvent(value: unknown): unknown {
  const out = redactJson(value);
  if (isRecord(out) && out['message'] === '') out['message'] = null;
  return out;
}
