/**
 * `tradescript_call` (SPEC §3, §5).
 */
import * as z from 'zod/mini';
import { CallReceiptSchema } from '../receipt.js';
import { ACT_ANNOTATIONS, CallShape, SessionIdSchema } from './common.js';

/** Input. */
export const CallInputSchema = z.strictObject({ sessionId: SessionIdSchema, ...CallShape });
/** Input (after defaults). */
export type CallInput = z.infer<typeof CallInputSchema>;

/** Tool definition. */
export const callTool = {
  name: 'tradescript_call',
  title: 'Call a control',
  description:
    'Invoke one control (from tradescript_list_controls) on one explicit target. For mutations that declare ' +
    'revision domains, pass expectedRevisions read from context just before; on revision_conflict re-read ' +
    'context and reconsider, never resend the stale call. Financial controls need context.operationId; reuse ' +
    'an operationId only to retry the identical call. On uncertain_execution, reconcile with reads before ' +
    'anything else. Returns the call receipt with revisions before and after.',
  annotations: ACT_ANNOTATIONS,
  input: CallInputSchema,
  data: CallReceiptSchema,
} as const;
