/**
 * Call receipts (SPEC §3): the identity and evidence of one dispatched call,
 * and the receipt without result that errors carry in `details.receipt`.
 */
import type { CallReceipt, ErrorReceipt, Revisions, Target } from '../../protocol/index.js';

/** What is known about a call from the moment it is dispatched. */
export interface DispatchFrame {
  readonly operationId: string;
  readonly controlId: string;
  readonly target: Target;
  readonly mutation: boolean;
  readonly revisionsBefore: Revisions;
  /** Epoch milliseconds, from the host clock. */
  readonly dispatchedAtMs: number;
}

/** ISO text of an epoch-millisecond time. */
export function isoTime(ms: number): string {
  return new Date(ms).toISOString();
}

function evidence(frame: DispatchFrame, revisionsAfter: Revisions, nowMs: number) {
  return {
    operationId: frame.operationId,
    origin: 'mcp' as const,
    controlId: frame.controlId,
    target: frame.target,
    mutation: frame.mutation,
    revisionsBefore: frame.revisionsBefore,
    revisionsAfter,
    durationMs: Math.max(0, nowMs - frame.dispatchedAtMs),
  };
}

/** The receipt of a call that answered. */
export function callReceipt(
  frame: DispatchFrame,
  revisionsAfter: Revisions,
  nowMs: number,
  result: unknown,
): CallReceipt {
  return { ...evidence(frame, revisionsAfter, nowMs), result };
}

/** `details.receipt`: the receipt without result, plus when it was dispatched. */
export function errorReceipt(frame: DispatchFrame, revisionsAfter: Revisions, nowMs: number): ErrorReceipt {
  return { ...evidence(frame, revisionsAfter, nowMs), dispatchedAt: isoTime(frame.dispatchedAtMs) };
}

/** The call receipt rebuilt from an error receipt, with a result (a reconciled outcome). */
export function receiptFromErrorReceipt(receipt: ErrorReceipt, result: unknown): CallReceipt {
  const { dispatchedAt: _dispatchedAt, ...rest } = receipt;
  return { ...rest, result };
}
