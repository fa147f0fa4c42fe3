/**
 * Cropping the browser's capture of the visible tab to one target (SPEC §8
 * "In the extension"): the page reports the target's rectangle in CSS pixels
 * and its viewport; the capture's own width gives the scale to device pixels.
 * A target not wholly on screen is not cropped (the SDK's capture serves it).
 */
import type { LinkView } from '../../../protocol/wire/hostLink.js';

/** The region of the capture to keep, and the size to draw it at. */
export interface CropRegion {
  sx: number;
  sy: number;
  sw: number;
  sh: number;
  /** At most `maxPixels` pixels, same aspect. */
  outWidth: number;
  outHeight: number;
}

/** How far (CSS pixels) a rectangle may stick out of the viewport and still count as on screen. */
const EDGE_TOLERANCE = 1;

/** True when the target shows whole, in a visible tab. */
export function wholeOnScreen(view: LinkView): boolean {
  const { rect, viewport } = view;
  return (
    view.visible &&
    rect.width >= 1 &&
    rect.height >= 1 &&
    rect.x >= -EDGE_TOLERANCE &&
    rect.y >= -EDGE_TOLERANCE &&
    rect.x + rect.width <= viewport.width + EDGE_TOLERANCE &&
    rect.y + rect.height <= viewport.height + EDGE_TOLERANCE
  );
}

/** The crop of an `imageWidth` × `imageHeight` capture for `view`; null when it cannot be cropped. */
export function cropRegion(
  view: LinkView,
  imageWidth: number,
  imageHeight: number,
  maxPixels: number,
): CropRegion | null {
  if (!wholeOnScreen(view) || imageWidth < 1 || imageHeight < 1) return null;
  const scale = imageWidth / view.viewport.width;
  const sx = Math.min(imageWidth - 1, Math.max(0, Math.round(view.rect.x * scale)));
  const sy = Math.min(imageHeight - 1, Math.max(0, Math.round(view.rect.y * scale)));
  const sw = Math.max(1, Math.min(imageWidth - sx, Math.round(view.rect.width * scale)));
  const sh = Math.max(1, Math.min(imageHeight - sy, Math.round(view.rect.height * scale)));
  const budget = Math.max(1, Math.floor(maxPixels));
  const k = sw * sh > budget ? Math.sqrt(budget / (sw * sh)) : 1;
  return { sx, sy, sw, sh, outWidth: Math.max(1, Math.floor(sw * k)), outHeight: Math.max(1, Math.floor(sh * k)) };
}
