/**
 * Small assertions over host outcomes for the SDK's tests.
 */
import { CallReceiptSchema, ErrorObjectSchema, type CallReceipt, type ErrorObject } from '../../protocol/index.js';
import type { SessionOutcome } from '../types.js';

/** The data of a successful outcome (fails the test otherwise). */
export function dataOf(outcome: SessionOutcome): unknown {
  if (!outcome.ok) throw new Error(`Expected success, got ${outcome.error.code}: ${outcome.error.message}`);
  return outcome.data;
}

/** The receipt of a successful call, checked against the wire schema. */
export function receiptOf(outcome: SessionOutcome): CallReceipt {
  return CallReceiptSchema.parse(dataOf(outcome));
}

/** The error of a failed outcome, checked against the wire schema. */
export function errorOf(outcome: SessionOutcome): ErrorObject {
  if (outcome.ok) throw new Error(`Expected an error, got success: ${JSON.stringify(outcome.data)}`);
  return ErrorObjectSchema.parse(outcome.error);
}
