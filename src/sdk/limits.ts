/**
 * Page-side limits on what a call returns (SPEC §6): a result's JSON depth and
 * string lengths, and the result bytes. A successful mutation whose result
 * cannot fit keeps its identity and evidence with `result: null` and
 * `resultOmitted`; a read that cannot fit is `limit_exceeded`.
 */
import * as z from 'zod/mini';
import {
  checkResultShape,
  jsonByteLength,
  makeError,
  type CallReceipt,
  type ErrorObject,
  type RelayLimits,
  type ReportedLimit,
} from '../protocol/index.js';
import { redactJson } from './redact.js';

/** Bytes kept free for the envelope around a receipt (`meta`, keys). */
export const ENVELOPE_RESERVE_BYTES = 512;

/** A control's result, checked and made ready to travel. */
export type PreparedResult =
  | { ok: true; value: unknown }
  | { ok: false; problem: 'schema' }
  | { ok: false; problem: 'shape'; limit: 'jsonDepth' | 'stringLength'; max: number };

function toJson(value: unknown): { ok: true; value: unknown } | { ok: false } {
  try {
    const text = JSON.stringify(value);
    return { ok: true, value: text === undefined ? null : (JSON.parse(text) as unknown) };
  } catch {
    return { ok: false };
  }
}

/**
 * A failure's partial result made ready to travel (`details.result`): plain
 * JSON within the depth and string limits, redacted; undefined when it cannot
 * be carried, so the error keeps everything else.
 */
export function carriableResult(raw: unknown, limits: Pick<RelayLimits, 'jsonDepth' | 'stringLength'>): unknown {
  if (raw === undefined) return undefined;
  if (checkResultShape(raw, limits)) return undefined;
  const json = toJson(raw);
  return json.ok ? redactJson(json.value) : undefined;
}

/** Validates a result against its schema and bounds, then redacts its text. */
export function prepareResult(schema: z.core.$ZodType, raw: unknown, limits: RelayLimits): PreparedResult {
  const parsed = z.safeParse(schema, raw);
  if (!parsed.success) return { ok: false, problem: 'schema' };
  const breach = checkResultShape(parsed.data, limits);
  if (breach) return { ok: false, problem: 'shape', limit: breach.limit, max: breach.max };
  const json = toJson(parsed.data);
  if (!json.ok) return { ok: false, problem: 'schema' };
  return { ok: true, value: redactJson(json.value) };
}

/** True when a value's JSON fits in `bytes` with room for its envelope. */
export function fitsIn(value: unknown, bytes: number): boolean {
  return jsonByteLength(value) + ENVELOPE_RESERVE_BYTES <= bytes;
}

/** True when a receipt fits the result limit. */
export function receiptFits(receipt: CallReceipt, limits: RelayLimits): boolean {
  return fitsIn(receipt, limits.resultBytes);
}

/** `limit_exceeded` naming the limit and its value. */
export function limitExceeded(limit: ReportedLimit, max: number, message?: string): ErrorObject {
  return makeError(
    'limit_exceeded',
    message ?? `The answer exceeds the ${limit} limit (${max}); ask for less and call again.`,
    { details: { limit, max } },
  );
}
