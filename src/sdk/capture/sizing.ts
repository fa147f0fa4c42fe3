/**
 * Capture sizes (SPEC §6, §8): the page rasterizes at most `maxPixels` and
 * {@link SNAPSHOT_MAX_SIDE} per side, so it never holds a giant canvas; the
 * bridge worker then scales further and encodes.
 */
import { SNAPSHOT_MAX_SIDE } from '../../protocol/index.js';

/** A size in device pixels. */
export interface PixelSize {
  width: number;
  height: number;
}

/** The rounded raster size of a CSS box at a pixel ratio. */
export function rasterSize(cssWidth: number, cssHeight: number, ratio: number): PixelSize {
  return { width: Math.max(1, Math.round(cssWidth * ratio)), height: Math.max(1, Math.round(cssHeight * ratio)) };
}

function fits(size: PixelSize, maxPixels: number): boolean {
  return size.width * size.height <= maxPixels && size.width <= SNAPSHOT_MAX_SIDE && size.height <= SNAPSHOT_MAX_SIDE;
}

/**
 * The pixel ratio to rasterize a CSS box at: the device's, or smaller so the
 * rounded raster fits `maxPixels` and the per-side maximum.
 */
export function rasterRatio(cssWidth: number, cssHeight: number, deviceRatio: number, maxPixels: number): number {
  let ratio = Math.min(
    deviceRatio,
    Math.sqrt(maxPixels / (cssWidth * cssHeight)),
    SNAPSHOT_MAX_SIDE / cssWidth,
    SNAPSHOT_MAX_SIDE / cssHeight,
  );
  if (fits(rasterSize(cssWidth, cssHeight, ratio), maxPixels)) return ratio;
  // Rounding (and the one-pixel floor per side) can push the product over: find the largest ratio that fits.
  let low = 0;
  for (let i = 0; i < 48; i += 1) {
    const mid = (low + ratio) / 2;
    if (fits(rasterSize(cssWidth, cssHeight, mid), maxPixels)) low = mid;
    else ratio = mid;
  }
  return low;
}

/** The largest size of the same aspect as `size` that fits (never larger than `size`). */
export function fitWithin(size: PixelSize, maxPixels: number): PixelSize {
  if (fits(size, maxPixels)) return size;
  const ratio = rasterRatio(size.width, size.height, 1, maxPixels);
  const fitted = rasterSize(size.width, size.height, ratio);
  return fits(fitted, maxPixels) ? fitted : { width: 1, height: 1 };
}
