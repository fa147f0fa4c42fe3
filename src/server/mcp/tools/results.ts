/**
 * Reads the page's answer (parse, don't cast) and enforces the result limits
 * on the server side of the relay (SPEC §6; the page enforces them first).
 */
import type { ImageContent } from '@modelcontextprotocol/server';
import {
  batchTool,
  callTool,
  ErrorObjectSchema,
  fitReceipt,
  jsonByteLength,
  limitExceeded,
  makeError,
  shrinkOutcome,
  snapshotTool,
  TOOLS,
  type BatchData,
  type BatchOutcome,
  type CallReceipt,
  type ErrorObject,
  type Limits,
  type ToolName,
  utf8Length,
} from '../../../protocol/index.js';
import { wasRead, type HubOutcome } from '../../hub/hubPort.js';

/**
 * A checked answer: data (and a snapshot's image), or an envelope error.
 * `dataJson` is the data's JSON text when measuring it already made it, so
 * the envelope reuses it instead of serializing the data a second time.
 */
export type ShapedResult =
  { ok: true; data: unknown; images: ImageContent[]; dataJson?: string } | { ok: false; error: ErrorObject };

/** The page's answer did not match the contract: a defect, never the caller's fault. */
function unreadableError(): ErrorObject {
  return makeError(
    'internal_error',
    'The terminal sent an answer this server cannot read. Re-read context with tradescript_get_context before anything else.',
  );
}

const unreadable = (): ShapedResult => ({ ok: false, error: unreadableError() });

const readTooLarge = (max: number): ErrorObject => limitExceeded('resultBytes', max);

/**
 * Shrinks an oversized batch, largest results first, by the batch fit rule
 * (`shrinkOutcome`: a mutation keeps a compact receipt, a read becomes a
 * `rejected` outcome with `limit_exceeded`). Nothing that ran is ever reported
 * as not run.
 */
function fitBatch(batch: BatchData, max: number): ShapedResult {
  if (jsonByteLength(batch) <= max) return { ok: true, data: batch, images: [] };
  const outcomes: BatchOutcome[] = [...batch.outcomes];
  const bySize = outcomes
    .flatMap((o, i) => (o.status === 'fulfilled' ? [{ i, size: jsonByteLength(o.receipt.result) }] : []))
    .sort((a, b) => b.size - a.size);
  for (const { i } of bySize) {
    const outcome = outcomes[i];
    if (outcome?.status !== 'fulfilled') continue;
    outcomes[i] = shrinkOutcome(outcome, max);
    if (jsonByteLength({ ...batch, outcomes }) <= max) return { ok: true, data: { ...batch, outcomes }, images: [] };
  }
  return { ok: false, error: readTooLarge(max) };
}

/** Exactly one outcome per input, in order (SPEC §3). */
function isCompleteBatch(batch: BatchData, calls: number): boolean {
  return batch.outcomes.length === calls && batch.outcomes.every((o, i) => o.index === i);
}

function shapeSnapshot(outcome: HubOutcome & { ok: true }, limits: Limits): ShapedResult {
  const parsed = snapshotTool.data.safeParse(outcome.data);
  const image = outcome.image;
  if (!parsed.success || !image || image.mimeType !== parsed.data.mimeType) return unreadable();
  const bytes = Math.floor((image.base64.length * 3) / 4);
  if (bytes > limits.snapshotBytes) {
    return {
      ok: false,
      error: limitExceeded('snapshotBytes', limits.snapshotBytes),
    };
  }
  return { ok: true, data: parsed.data, images: [{ type: 'image', data: image.base64, mimeType: image.mimeType }] };
}

/** A read: its data must match the tool's schema and fit whole. */
function shapeRead(name: ToolName, data: unknown, max: number): ShapedResult {
  const parsed = TOOLS.find((t) => t.name === name)?.data.safeParse(data);
  if (!parsed?.success) return unreadable();
  return jsonByteLength(parsed.data) <= max
    ? { ok: true, data: parsed.data, images: [] }
    : { ok: false, error: readTooLarge(max) };
}

/**
 * Checks a successful answer against the tool's data schema and the result
 * limits. `batchCalls` is the number of calls the batch sent.
 */
export function shapeSuccess(
  name: ToolName,
  outcome: HubOutcome & { ok: true },
  limits: Limits,
  batchCalls = 0,
): ShapedResult {
  const max = limits.resultBytes;
  switch (name) {
    case 'tradescript_call': {
      // Read once on this side: by this process's hub, or here when the answer crossed the hub link.
      const receipt = wasRead(outcome.data)
        ? { success: true as const, data: outcome.data as CallReceipt }
        : callTool.data.safeParse(outcome.data);
      if (!receipt.success) return unreadable();
      // fitReceipt's own first test, kept as text: a receipt that fits whole (nearly all) is sent as measured.
      const dataJson = JSON.stringify(receipt.data);
      if (utf8Length(dataJson) <= max) return { ok: true, data: receipt.data, images: [], dataJson };
      const fitted = fitReceipt(receipt.data, max);
      return fitted.ok ? { ok: true, data: fitted.receipt, images: [] } : fitted;
    }
    case 'tradescript_batch': {
      const batch = wasRead(outcome.data)
        ? { success: true as const, data: outcome.data as BatchData }
        : batchTool.data.safeParse(outcome.data);
      return batch.success && isCompleteBatch(batch.data, batchCalls) ? fitBatch(batch.data, max) : unreadable();
    }
    case 'tradescript_snapshot':
      return shapeSnapshot(outcome, limits);
    default:
      return shapeRead(name, outcome.data, max);
  }
}

/** Checks a failed answer: a complete error object, or `internal_error`. */
export function shapeFailure(error: unknown): ErrorObject {
  const parsed = ErrorObjectSchema.safeParse(error);
  return parsed.success ? parsed.data : unreadableError();
}
