/**
 * `snapshot` requests in the bridge worker (SPEC §3, §8): the page rasterizes
 * the target and transfers an ImageBitmap; the worker scales and encodes it
 * to fit the limits, reports progress after capture and after encode, and
 * answers with the data and the base64 image. The bitmap is always closed.
 * A capture the browser already encoded (the extension's visible tab) is
 * answered as it is when a PNG at its size fits, and decoded otherwise.
 */
import { limitExceeded, makeError, type Operation, type RelayLimits, type SnapshotData } from '../../protocol/index.js';
import type { RelayOutcome } from '../relay/clientFrames.js';
import type { CaptureOutcome, EncodedCapture, ObservePort } from './observeTypes.js';
import { encodeWithin, offscreenEncoder, toBase64, type EncodedImage, type ImageEncoder } from './snapshotEncode.js';
import { fitSnapshot, maxPixelsOf, type SnapshotBounds, type SnapshotSize } from './snapshotScale.js';
import { iso } from './subscription.js';
import { phaseMark } from '../../sdk/phaseMark.js';

type SnapshotOp = Extract<Operation, { kind: 'snapshot' }>;

/** What a snapshot needs around it. */
export interface SnapshotDeps {
  port: Pick<ObservePort, 'capture'>;
  encoder?: ImageEncoder;
  /** Decodes a browser-encoded capture that must be scaled or re-encoded. */
  decodePng?: (png: Uint8Array<ArrayBuffer>) => Promise<ImageBitmap>;
  now?: () => number;
}

type BitmapCapture = Extract<CaptureOutcome, { ok: true }>;

const decodeInBrowser = (png: Uint8Array<ArrayBuffer>): Promise<ImageBitmap> =>
  createImageBitmap(new Blob([png], { type: 'image/png' }));

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
  const captured: CaptureOutcome | EncodedCapture | null = await deps.port
    .capture(op.target, { maxPixels: maxPixelsOf(limits.snapshotPixels) })
    .catch(() => null);
  if (captured === null)
    return failed(makeError('internal_error', 'The page did not answer the capture; reload the terminal tab.'));
  if (!captured.ok) return failed(captured.error);
  phaseMark('worker.captured');
  const capturedAt = iso((deps.now ?? Date.now)());
  progress(1, SNAPSHOT_STEPS);
  const bounds = { maxWidth: op.maxWidth, maxHeight: op.maxHeight, snapshotPixels: limits.snapshotPixels };
  if ('png' in captured && keptAsItIs(captured, bounds, op, limits)) {
    progress(2, SNAPSHOT_STEPS);
    const size = { width: captured.width, height: captured.height, scaled: false };
    return answer({ bytes: captured.png, mimeType: 'image/png' }, size, op, capturedAt);
  }
  const bitmapCapture = 'png' in captured ? await decoded(captured, deps.decodePng ?? decodeInBrowser) : captured;
  if (bitmapCapture === null)
    return failed(makeError('internal_error', 'The browser’s capture of the tab could not be decoded; try again.'));
  try {
    return await encodeCapture(
      deps.encoder ?? offscreenEncoder,
      bitmapCapture,
      bounds,
      limits,
      op,
      capturedAt,
      progress,
    );
  } catch {
    return failed(
      makeError('internal_error', 'The bridge worker could not encode the capture; this is a defect of the bridge.'),
    );
  } finally {
    bitmapCapture.bitmap.close();
  }
}

/** A browser-encoded capture as a bitmap capture of the same size; null when it cannot be decoded. */
async function decoded(
  captured: EncodedCapture,
  decodePng: NonNullable<SnapshotDeps['decodePng']>,
): Promise<BitmapCapture | null> {
  const bitmap = await decodePng(captured.png).catch(() => null);
  return bitmap && { ok: true, bitmap, width: captured.width, height: captured.height };
}

/** A browser-encoded PNG answers as it is: PNG asked for, no bound shrinks it, its bytes fit. */
function keptAsItIs(captured: EncodedCapture, bounds: SnapshotBounds, op: SnapshotOp, limits: RelayLimits): boolean {
  return (
    op.format === 'png' &&
    !fitSnapshot(captured.width, captured.height, bounds).scaled &&
    captured.png.byteLength <= limits.snapshotBytes
  );
}

async function encodeCapture(
  encoder: ImageEncoder,
  captured: BitmapCapture,
  bounds: SnapshotBounds,
  limits: RelayLimits,
  op: SnapshotOp,
  capturedAt: string,
  progress: (progress: number, total?: number) => void,
): Promise<RelayOutcome> {
  const { bitmap } = captured;
  // The page may already have rasterized below the target's size to respect maxPixels.
  const preScaled = bitmap.width < captured.width || bitmap.height < captured.height;
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
  return answer(fitted, { ...fitted.size, scaled: fitted.size.scaled || preScaled }, op, capturedAt);
}

/** The answer: the snapshot's data and its base64 image. */
function answer(image: EncodedImage, size: SnapshotSize, op: SnapshotOp, capturedAt: string): RelayOutcome {
  const data: SnapshotData = {
    mimeType: image.mimeType,
    width: size.width,
    height: size.height,
    byteLength: image.bytes.byteLength,
    scaled: size.scaled,
    target: op.target,
    capturedAt,
  };
  const base64 = toBase64(image.bytes);
  phaseMark('worker.base64');
  return { ok: true, data, image: { mimeType: image.mimeType, base64 } };
}
