/**
 * Page-side limits on what a call returns (SPEC §6): a result's JSON depth and
 * string lengths, and the result bytes. A successful mutation whose result
 * cannot fit keeps its identity and evidence with `result: null` and
 * `resultOmitted`; a read that cannot fit is `limit_exceeded`.
 */
import * as z from 'zod/mini';
import {
  checkResultShape,
  ENVELOPE_RESERVE_BYTES,
  fitReceipt,
  jsonByteLength,
  type CallReceipt,
  type ErrorObject,
  type RelayLimits,
} from '../../protocol/index.js';
import { redactJson } from './redact.js';

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

/**
 * A receipt held to the result limit with room for its envelope: the page's
 * use of the one fit rule (`fitReceipt`: a mutation compact, a read
 * `limit_exceeded`).
 */
export function fitResultLimit(
  receipt: CallReceipt,
  limits: Pick<RelayLimits, 'resultBytes'>,
): { ok: true; receipt: CallReceipt } | { ok: false; error: ErrorObject } {
  return fitReceipt(receipt, limits.resultBytes - ENVELOPE_RESERVE_BYTES, limits.resultBytes);
}
