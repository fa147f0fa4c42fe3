/**
 * Scaling and encoding a captured bitmap in the bridge worker (SPEC §8): the
 * drawing and encoding sit behind {@link ImageEncoder} (OffscreenCanvas in a
 * browser, a fake in Node tests), so the retry-until-it-fits loop is tested
 * without a canvas.
 */
import type { SnapshotFormat } from '../../protocol/index.js';
import { shrinkForBytes, type SnapshotSize } from './snapshotScale.js';
import { phaseMark } from '../../sdk/phaseMark.js';

/** The MIME type of each format. */
export const SNAPSHOT_MIME = { png: 'image/png', jpeg: 'image/jpeg', webp: 'image/webp' } as const;
/** A snapshot MIME type. */
export type SnapshotMime = (typeof SNAPSHOT_MIME)[SnapshotFormat];

/** Quality of lossy formats (PNG ignores it). */
export const LOSSY_QUALITY = 0.9;
/** Encodings tried before giving up (each retry shrinks the area by ≥ 19%). */
export const MAX_ENCODE_ATTEMPTS = 24;

/** One encoded image. */
export interface EncodedImage {
  bytes: Uint8Array;
  mimeType: SnapshotMime;
}

/** Draws `source` at a size and encodes it. */
export interface ImageEncoder<Source = ImageBitmap> {
  encode(source: Source, width: number, height: number, mimeType: SnapshotMime, quality: number): Promise<EncodedImage>;
}

/** What came out: the image and its final size. */
export interface FittedImage extends EncodedImage {
  size: SnapshotSize;
}

/**
 * Encodes at `size`, then smaller until the bytes fit `maxBytes` (`scaled`
 * then says so). Null only if even a tiny image does not fit, which no real
 * encoder does.
 */
export async function encodeWithin<Source>(
  encoder: ImageEncoder<Source>,
  source: Source,
  size: SnapshotSize,
  format: SnapshotFormat,
  maxBytes: number,
): Promise<FittedImage | null> {
  let current = size;
  for (let attempt = 0; attempt < MAX_ENCODE_ATTEMPTS; attempt++) {
    const encoded = await encoder.encode(source, current.width, current.height, SNAPSHOT_MIME[format], LOSSY_QUALITY);
    if (encoded.bytes.byteLength <= maxBytes) return { ...encoded, size: current };
    if (current.width === 1 && current.height === 1) return null;
    current = shrinkForBytes(current, encoded.bytes.byteLength, maxBytes);
  }
  return null;
}

/** `Uint8Array.prototype.toBase64` (ES2026), where the engine has it. */
type NativeBase64 = Uint8Array & { toBase64?: () => string };

/**
 * Base64 of bytes: the engine's own encoder where there is one (one pass,
 * no intermediate string), else in chunks so no call gets millions of
 * arguments.
 */
export function toBase64(bytes: Uint8Array): string {
  const native = (bytes as NativeBase64).toBase64;
  if (typeof native === 'function') return native.call(bytes);
  return chunkedBase64(bytes);
}

/** Base64 of bytes through `btoa`, in chunks. */
export function chunkedBase64(bytes: Uint8Array): string {
  const chunk = 0x8000;
  let binary = '';
  for (let i = 0; i < bytes.length; i += chunk) {
    binary += String.fromCharCode.apply(null, bytes.subarray(i, i + chunk) as unknown as number[]);
  }
  return btoa(binary);
}

/**
 * The browser encoder: an OffscreenCanvas per encoding, `convertToBlob` for the
 * bytes. At the source's own size nothing is drawn: a bitmap renderer takes a
 * reference to the captured pixels (`createImageBitmap` of a bitmap shares
 * them), so the encoder reads exactly what the page rasterized. A 2D draw
 * there, flushed by the encode, added about 11 ms to a 1280×720 terminal's
 * scale and encode (bench/snapshotPhases.mjs, "scale" + "encode"). The source
 * stays open for a smaller retry. Other sizes are drawn, smoothed, into a 2D
 * canvas.
 */
export const offscreenEncoder: ImageEncoder = {
  async encode(source, width, height, mimeType, quality) {
    const canvas = new OffscreenCanvas(width, height);
    if (width === source.width && height === source.height) {
      const renderer = canvas.getContext('bitmaprenderer');
      if (!renderer) throw new Error('OffscreenCanvas bitmaprenderer context unavailable');
      renderer.transferFromImageBitmap(await createImageBitmap(source));
    } else {
      const context = canvas.getContext('2d');
      if (!context) throw new Error('OffscreenCanvas 2d context unavailable');
      context.imageSmoothingEnabled = true;
      context.imageSmoothingQuality = 'high';
      context.drawImage(source, 0, 0, width, height);
    }
    phaseMark('worker.scaled');
    const blob = await canvas.convertToBlob({ type: mimeType, quality });
    // A browser without the requested encoder falls back to PNG; report what was made.
    const actual = Object.values(SNAPSHOT_MIME).find((mime) => mime === blob.type) ?? 'image/png';
    return { bytes: new Uint8Array(await blob.arrayBuffer()), mimeType: actual };
  },
};
