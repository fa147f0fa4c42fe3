/**
 * Snapshot sizes (SPEC §6, §8): a capture is downscaled to fit the caller's
 * maxWidth/maxHeight, {@link SNAPSHOT_MAX_SIDE} per side and the decoded-pixel
 * limit, and further when the encoded bytes do not fit; it is never refused
 * for size. Pure functions, so every decision is unit-tested in Node.
 */
import { SNAPSHOT_MAX_SIDE } from '../../protocol/index.js';

/** An output size, and whether it is smaller than what was captured. */
export interface SnapshotSize {
  width: number;
  height: number;
  scaled: boolean;
}

/** What bounds one snapshot. */
export interface SnapshotBounds {
  maxWidth?: number;
  maxHeight?: number;
  /** Decoded bytes (width × height × 4), the `snapshotPixels` limit. */
  snapshotPixels: number;
  /** Pixels per side (default {@link SNAPSHOT_MAX_SIDE}). */
  maxSide?: number;
}

/** Decoded bytes per pixel (RGBA). */
export const BYTES_PER_PIXEL = 4;

/** The most pixels a snapshot of `snapshotPixels` decoded bytes may have. */
export function maxPixelsOf(snapshotPixels: number): number {
  return Math.floor(snapshotPixels / BYTES_PER_PIXEL);
}

function scaleBy(width: number, height: number, factor: number): SnapshotSize {
  const w = Math.max(1, Math.floor(width * factor));
  const h = Math.max(1, Math.floor(height * factor));
  return { width: w, height: h, scaled: w < width || h < height };
}

/** The largest size of the same aspect within every bound (never larger than the capture). */
export function fitSnapshot(width: number, height: number, bounds: SnapshotBounds): SnapshotSize {
  const side = bounds.maxSide ?? SNAPSHOT_MAX_SIDE;
  const maxPixels = maxPixelsOf(bounds.snapshotPixels);
  const factor = Math.min(
    1,
    (bounds.maxWidth ?? side) / width,
    (bounds.maxHeight ?? side) / height,
    side / width,
    side / height,
    Math.sqrt(maxPixels / (width * height)),
  );
  let size = scaleBy(width, height, factor);
  // Floating point may leave one row too many; step down until the product fits.
  while (size.width * size.height > maxPixels && (size.width > 1 || size.height > 1)) {
    size = scaleBy(width, height, Math.min(size.width / width, size.height / height) * 0.999);
  }
  return size;
}

/**
 * The next size after an encoding of `bytes` came out over `maxBytes`: the
 * area shrinks by the overshoot with a 10% margin, and by at least 10%, so
 * the retries end (at 1 × 1 at the latest).
 */
export function shrinkForBytes(size: SnapshotSize, bytes: number, maxBytes: number): SnapshotSize {
  const factor = Math.min(0.9, Math.sqrt(maxBytes / bytes) * 0.9);
  const next = scaleBy(size.width, size.height, factor);
  return { ...next, scaled: true };
}
