/**
 * What happens to a result that does not fit (SPEC §3, §6), one rule for both
 * sides of the relay: the page applies it first, the server again. A mutation
 * happened, so it keeps its receipt without the result (identity, revisions and
 * evidence stay); a read that cannot fit is `limit_exceeded`; nothing that ran
 * is ever reported as not run.
 */
import { limitExceeded, type ErrorObject, type ResultOmitted } from './errors.js';
import { jsonByteLength } from './jsonLimits.js';
import type { CallReceipt, CompactReceipt } from './receipt.js';
import type { BatchOutcome } from './tools/batch.js';

/** Bytes the page keeps free for the envelope around a receipt (`meta`, keys). */
export const ENVELOPE_RESERVE_BYTES = 512;

/** A receipt whose result was left out (`limit` says why): identity, revisions and mutation evidence stay. */
export function compactReceipt(receipt: CallReceipt, limit: ResultOmitted['limit'] = 'resultBytes'): CompactReceipt {
  return { ...receipt, result: null, resultOmitted: { reason: 'result-too-large', limit } };
}

/**
 * A call's receipt held to `maxBytes` of JSON: unchanged when it fits, compact
 * for a mutation, `limit_exceeded` (`resultBytes`, reported as `resultBytes`)
 * for a read.
 */
export function fitReceipt(
  receipt: CallReceipt,
  maxBytes: number,
  resultBytes: number = maxBytes,
): { ok: true; receipt: CallReceipt } | { ok: false; error: ErrorObject } {
  if (jsonByteLength(receipt) <= maxBytes) return { ok: true, receipt };
  if (!receipt.mutation) return { ok: false, error: limitExceeded('resultBytes', resultBytes) };
  return { ok: true, receipt: compactReceipt(receipt) };
}

/**
 * The smaller form of one batch outcome that does not fit (the batch fit rule):
 * a mutation keeps a compact receipt, a read becomes `rejected` with
 * `limit_exceeded`, a rejection loses its partial `details.result`; a skipped
 * call stays as it is.
 */
export function shrinkOutcome(outcome: BatchOutcome, resultBytes: number): BatchOutcome {
  if (outcome.status === 'fulfilled') {
    if (outcome.receipt.mutation) return { ...outcome, receipt: compactReceipt(outcome.receipt) };
    return { index: outcome.index, status: 'rejected', error: limitExceeded('resultBytes', resultBytes) };
  }
  if (outcome.status === 'rejected' && outcome.error.details?.result !== undefined) {
    const { result: _result, ...details } = outcome.error.details;
    return { ...outcome, error: { ...outcome.error, details } };
  }
  return outcome;
}
