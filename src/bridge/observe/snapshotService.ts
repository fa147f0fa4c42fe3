/**
 * `snapshot` requests in the bridge worker (SPEC §3, §8): the page rasterizes
 * the target and transfers an ImageBitmap; the worker scales and encodes it
 * to fit the limits, reports progress after capture and after encode, and
 * answers with the data and the base64 image. The bitmap is always closed.
 */
import { limitExceeded, makeError, type Operation, type RelayLimits, type SnapshotData } from '../../protocol/index.js';
import type { RelayOutcome } from '../relay/clientFrames.js';
import type { CaptureOutcome, ObservePort } from './observeTypes.js';
import { encodeWithin, offscreenEncoder, toBase64, type ImageEncoder } from './snapshotEncode.js';
import { fitSnapshot, maxPixelsOf } from './snapshotScale.js';
import { iso } from './subscription.js';
import { phaseMark } from '../../sdk/phaseMark.js';

type SnapshotOp = Extract<Operation, { kind: 'snapshot' }>;

/** What a snapshot needs around it. */
export interface SnapshotDeps {
  port: Pick<ObservePort, 'capture'>;
  encoder?: ImageEncoder;
  now?: () => number;
}

/** Steps of a snapshot's progress: captured, encoded. */
export const SNAPSHOT_STEPS = 2;

const failed = (error: ReturnType<typeof makeError>): RelayOutcome => ({ ok: false, error });

/** Captures, scales and encodes one target. */
export async function takeSnapshot(
  deps: SnapshotDeps,
  limits: RelayLimits,
  op: SnapshotOp,
  progress: (progress: number, total?: number) => void,
): Promise<RelayOutcome> {
  if (op.target.scope === 'session') {
    return failed(
      makeError(
        'target_not_renderable',
        'A session target has no rendered root: snapshot a chart or widget target from availableTargets.',
      ),
    );
  }
  phaseMark('worker.request');
  const captured: CaptureOutcome | null = await deps.port
    .capture(op.target, { maxPixels: maxPixelsOf(limits.snapshotPixels) })
    .catch(() => null);
  if (captured === null)
    return failed(makeError('internal_error', 'The page did not answer the capture; reload the terminal tab.'));
  if (!captured.ok) return failed(captured.error);
  phaseMark('worker.captured');
  const capturedAt = iso((deps.now ?? Date.now)());
  progress(1, SNAPSHOT_STEPS);
  try {
    return await encodeCapture(deps.encoder ?? offscreenEncoder, captured, limits, op, capturedAt, progress);
  } catch {
    return failed(
      makeError('internal_error', 'The bridge worker could not encode the capture; this is a defect of the bridge.'),
    );
  } finally {
    captured.bitmap.close();
  }
}

async function encodeCapture(
  encoder: ImageEncoder,
  captured: Extract<CaptureOutcome, { ok: true }>,
  limits: RelayLimits,
  op: SnapshotOp,
  capturedAt: string,
  progress: (progress: number, total?: number) => void,
): Promise<RelayOutcome> {
  const { bitmap } = captured;
  // The page may already have rasterized below the target's size to respect maxPixels.
  const preScaled = bitmap.width < captured.width || bitmap.height < captured.height;
  const bounds = { maxWidth: op.maxWidth, maxHeight: op.maxHeight, snapshotPixels: limits.snapshotPixels };
  const fitted = await encodeWithin(
    encoder,
    bitmap,
    fitSnapshot(bitmap.width, bitmap.height, bounds),
    op.format,
    limits.snapshotBytes,
  );
  phaseMark('worker.encoded');
  if (fitted === null) {
    return failed(limitExceeded('snapshotBytes', limits.snapshotBytes));
  }
  progress(2, SNAPSHOT_STEPS);
  const data: SnapshotData = {
    mimeType: fitted.mimeType,
    width: fitted.size.width,
    height: fitted.size.height,
    byteLength: fitted.bytes.byteLength,
    scaled: fitted.size.scaled || preScaled,
    target: op.target,
    capturedAt,
  };
  const base64 = toBase64(fitted.bytes);
  phaseMark('worker.base64');
  return { ok: true, data, image: { mimeType: fitted.mimeType, base64 } };
}
