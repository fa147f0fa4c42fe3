/**
 * `tradescript_batch` (SPEC §3): ordered, non-atomic, one outcome per input.
 */
import * as z from 'zod/mini';
import { ErrorObjectSchema } from '../errors.js';
import { CallReceiptSchema } from '../receipt.js';
import { ACT_ANNOTATIONS, CallShape, SessionIdSchema } from './common.js';

/** One call of a batch (the session is the batch's). */
export const BatchCallSchema = z.strictObject(CallShape);
/** One call of a batch. */
export type BatchCall = z.infer<typeof BatchCallSchema>;

/** Input. */
export const BatchInputSchema = z.strictObject({
  sessionId: SessionIdSchema,
  calls: z.array(BatchCallSchema).check(z.minLength(1), z.describe('Ordered calls (at most 25).')),
  stopOnError: z
    ._default(z.boolean(), true)
    .check(
      z.describe(
        'Stop at the first failed call and mark the rest skipped (default true). Use false only when later calls are independently safe.',
      ),
    ),
});
/** Input (after defaults). */
export type BatchInput = z.infer<typeof BatchInputSchema>;

/** Why a call of a batch did not run. */
export const SkipReasonSchema = z.enum(['stop-on-error', 'response-size-limit']);
/** Why a call did not run. */
export type SkipReason = z.infer<typeof SkipReasonSchema>;

/** One outcome per input, in order. */
export const BatchOutcomeSchema = z.discriminatedUnion('status', [
  z.strictObject({ index: z.int().check(z.nonnegative()), status: z.literal('fulfilled'), receipt: CallReceiptSchema }),
  z.strictObject({ index: z.int().check(z.nonnegative()), status: z.literal('rejected'), error: ErrorObjectSchema }),
  z.strictObject({ index: z.int().check(z.nonnegative()), status: z.literal('skipped'), reason: SkipReasonSchema }),
]);
/** One batch outcome. */
export type BatchOutcome = z.infer<typeof BatchOutcomeSchema>;

/** Output data. */
export const BatchDataSchema = z.strictObject({ atomic: z.literal(false), outcomes: z.array(BatchOutcomeSchema) });
/** Output data. */
export type BatchData = z.infer<typeof BatchDataSchema>;

/** Tool definition. */
export const batchTool = {
  name: 'tradescript_batch',
  title: 'Run ordered calls',
  description:
    'Run up to 25 ordered tradescript_call entries in one session. Not atomic: earlier successes are never ' +
    'rolled back. Returns exactly one outcome per input: fulfilled (with the call receipt), rejected (with ' +
    'the error) or skipped (stop-on-error, response-size-limit). isError is true only when the batch itself ' +
    'is malformed.',
  annotations: ACT_ANNOTATIONS,
  input: BatchInputSchema,
  data: BatchDataSchema,
} as const;
