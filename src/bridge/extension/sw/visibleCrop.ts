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

/** True when `crop` keeps all of a `width` × `height` capture at its own size: the capture is the answer. */
export function keepsWhole(crop: CropRegion, width: number, height: number): boolean {
  return (
    crop.sx === 0 &&
    crop.sy === 0 &&
    crop.sw === width &&
    crop.sh === height &&
    crop.outWidth === width &&
    crop.outHeight === height
  );
}

const PNG_SIGNATURE = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a];
/** "IHDR", the chunk every PNG opens with. */
const IHDR = [0x49, 0x48, 0x44, 0x52];

/** A PNG's size from its header chunk, without decoding it; null when the bytes are not a PNG. */
export function pngSize(bytes: Uint8Array): { width: number; height: number } | null {
  if (bytes.byteLength < 24) return null;
  if (PNG_SIGNATURE.some((byte, i) => bytes[i] !== byte)) return null;
  if (IHDR.some((byte, i) => bytes[12 + i] !== byte)) return null;
  const header = new DataView(bytes.buffer, bytes.byteOffset + 16, 8);
  const width = header.getUint32(0);
  const height = header.getUint32(4);
  return width > 0 && height > 0 ? { width, height } : null;
}
