/**
 * What a page answers is held to `jsonDepth`, `stringLength` and `resultBytes`
 * by the server too (SPEC §6: limits hold on both sides of the relay), with the
 * limits of the front that asked:
 *
 * - a read whose answer breaks one is `limit_exceeded` (`retry:
 *   after_correction`: ask for less);
 * - a mutation's result that breaks one is left out (`result: null`,
 *   `resultOmitted` names the limit): the mutation happened, and its receipt
 *   says so;
 * - an error's `details.result` that breaks one is left out; the error keeps
 *   its code;
 * - anything else over a limit in a mutation's answer (its evidence, its
 *   error) makes the answer unreadable: the call was dispatched, so it is
 *   `uncertain_execution`, never a plain error that hides that it may have run.
 */
import {
  BatchDataSchema,
  CallReceiptSchema,
  checkJsonShape,
  checkResultShape,
  compactReceipt,
  jsonByteLength,
  limitExceeded,
  makeError,
  shapeFitsResultLimits,
  type BatchOutcome,
  type CallReceipt,
  type ErrorObject,
  type JsonLimitBreach,
  type JsonShape,
  type Operation,
  type RelayCall,
  type RelayLimits,
} from '../../../protocol/index.js';
import { withFastPath } from '../../../protocol/fastParse.js';
import { markRead, type HubOutcome } from '../hubPort.js';
import { sentCallReceipt } from './lostOutcomes.js';

/** The answer schemas with their fast paths: a valid answer is read without zod's generic walk (issue 15 item 1). */
const ReceiptReader = withFastPath(CallReceiptSchema);
const BatchDataReader = withFastPath(BatchDataSchema);

/** The limits applied to answers. */
export type AnswerLimits = Pick<RelayLimits, 'jsonDepth' | 'stringLength' | 'resultBytes'>;

/** What is known about the request an answer belongs to. */
export interface AnswerContext {
  op: Operation;
  limits: AnswerLimits;
  /** True when the session's catalog says (or does not deny) that a control may change state. */
  mutates: (controlId: string) => boolean;
  dispatchedAt: number;
  now: number;
  /**
   * The answer's frame as the relay measured it on reading (`browserFrameShape`), when
   * it did: an answer whose whole frame fits the result limits is not walked again.
   */
  frameShape?: JsonShape;
}

/** True when the frame was measured and fits every depth and string check below; then none walks it. */
function measuredFits(ctx: AnswerContext): boolean {
  return ctx.frameShape !== undefined && shapeFitsResultLimits(ctx.frameShape, ctx.limits);
}

type Breach = NonNullable<JsonLimitBreach>;

function readOverLimit(breach: Breach): ErrorObject {
  return limitExceeded(breach.limit, breach.max);
}

function unreadableMutation(call: RelayCall, breach: Breach, ctx: AnswerContext): ErrorObject {
  return makeError(
    'uncertain_execution',
    `The terminal answered this call with a value over the ${breach.limit} limit, so its outcome cannot be read. It was dispatched and may have run: reconcile with reads (context, the orders or alerts list) before deciding on a new operation.`,
    { details: { receipt: sentCallReceipt(call, ctx.dispatchedAt, ctx.now) } },
  );
}

/** An error's `details.result` over a limit (or over `resultBytes` with the error) is left out. */
function withoutOversizedResult(error: ErrorObject, limits: AnswerLimits, fits: boolean): ErrorObject {
  const details = error.details;
  if (!details || details.result === undefined) return error;
  if ((fits || !checkResultShape(details.result, limits)) && jsonByteLength(error) <= limits.resultBytes) return error;
  const { result: _dropped, ...rest } = details;
  return { ...error, details: rest };
}

/** Holds one call's error to the limits; `call` is null for a read operation that is not a call. */
function boundError(error: ErrorObject, call: RelayCall | null, ctx: AnswerContext): ErrorObject {
  const fits = measuredFits(ctx);
  const kept = withoutOversizedResult(error, ctx.limits, fits);
  const breach = fits ? null : checkJsonShape(kept, ctx.limits);
  if (!breach) return kept;
  const mayHaveRun = call !== null && (error.details?.receipt?.mutation === true || ctx.mutates(call.controlId));
  return mayHaveRun ? unreadableMutation(call, breach, ctx) : readOverLimit(breach);
}

/** A receipt held to the limits: unchanged, compacted (a mutation), or an error. */
function boundReceipt(
  receipt: CallReceipt,
  call: RelayCall,
  ctx: AnswerContext,
): { ok: true; receipt: CallReceipt } | { ok: false; error: ErrorObject } {
  if (measuredFits(ctx)) return { ok: true, receipt: markRead(receipt) };
  const mutation = receipt.mutation || ctx.mutates(call.controlId);
  const breach = checkResultShape(receipt.result, ctx.limits);
  if (breach && !mutation) return { ok: false, error: readOverLimit(breach) };
  const kept = breach ? compactReceipt(receipt, breach.limit) : receipt;
  // The result was just walked with the stricter result limits: the rest of the receipt is walked without it.
  const rest = checkJsonShape({ ...kept, result: null }, ctx.limits);
  if (!rest) return { ok: true, receipt: markRead(kept) };
  return { ok: false, error: mutation ? unreadableMutation(call, rest, ctx) : readOverLimit(rest) };
}

/** A call's answer: a receipt (or anything else, left to the front's schema check). */
function boundCall(data: unknown, call: RelayCall, ctx: AnswerContext): HubOutcome | { ok: true; data: unknown } {
  const parsed = ReceiptReader.safeParse(data);
  if (parsed.success) {
    const bounded = boundReceipt(parsed.data, call, ctx);
    return bounded.ok ? { ok: true, data: bounded.receipt } : { ok: false, error: bounded.error, environment: null };
  }
  const breach = measuredFits(ctx) ? null : checkJsonShape(data, ctx.limits);
  if (!breach) return { ok: true, data };
  const error = ctx.mutates(call.controlId) ? unreadableMutation(call, breach, ctx) : readOverLimit(breach);
  return { ok: false, error, environment: null };
}

function boundOutcome(outcome: BatchOutcome, call: RelayCall | undefined, ctx: AnswerContext): BatchOutcome {
  if (!call || outcome.status === 'skipped') return outcome;
  if (outcome.status === 'rejected') return { ...outcome, error: boundError(outcome.error, call, ctx) };
  const bounded = boundReceipt(outcome.receipt, call, ctx);
  return bounded.ok
    ? { ...outcome, receipt: bounded.receipt }
    : { index: outcome.index, status: 'rejected', error: bounded.error };
}

function boundBatch(data: unknown, calls: readonly RelayCall[], ctx: AnswerContext): unknown {
  const parsed = BatchDataReader.safeParse(data);
  // Not a batch answer: the front's schema check makes it `internal_error`; it must not be read deeper here.
  if (!parsed.success) return data;
  return markRead({ ...parsed.data, outcomes: parsed.data.outcomes.map((o) => boundOutcome(o, calls[o.index], ctx)) });
}

/** Holds a page's answer to the limits of the request it answers. */
export function boundAnswer(outcome: HubOutcome, ctx: AnswerContext): HubOutcome {
  const { op } = ctx;
  const call = op.kind === 'call' ? op.call : null;
  if (!outcome.ok) return { ...outcome, error: boundError(outcome.error, call, ctx) };
  if (op.kind === 'call') {
    const bounded = boundCall(outcome.data, op.call, ctx);
    return bounded.ok ? { ...outcome, data: bounded.data } : { ...bounded, environment: outcome.environment };
  }
  if (op.kind === 'batch') return { ...outcome, data: boundBatch(outcome.data, op.calls, ctx) };
  // Reads (context, list, subscribe, snapshot data): the image is held to snapshotBytes by the front.
  const breach = measuredFits(ctx) ? null : checkJsonShape(outcome.data, ctx.limits);
  return breach ? { ok: false, error: readOverLimit(breach), environment: outcome.environment } : outcome;
}
