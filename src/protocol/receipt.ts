/**
 * The call receipt (SPEC §3): the identity and evidence of one call.
 */
import * as z from 'zod/mini';
import { ErrorReceiptSchema, ReceiptEvidenceShape } from './errors.js';

/** What `tradescript_call` returns, and what a fulfilled batch outcome carries. */
export const CallReceiptSchema = z.strictObject({ ...ReceiptEvidenceShape, result: z.unknown() });
/** A call receipt. */
export type CallReceipt = z.infer<typeof CallReceiptSchema>;

/** A call receipt without its result (kept when the result cannot fit). */
export type CompactReceipt = Omit<CallReceipt, 'result'> & { result: null };

export { ErrorReceiptSchema };
/** `error.details.receipt`: the receipt without `result`, plus `dispatchedAt`. */
export type { ErrorReceipt } from './errors.js';
