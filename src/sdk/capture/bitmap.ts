/**
 * Turning what a target rendered into a transferable `ImageBitmap` within the
 * pixel budget, and giving the main thread a turn between capture steps.
 */
import { fitWithin } from './sizing.js';

/** What a render source may hand over. */
export type Rendered = ImageBitmap | HTMLCanvasElement;

/** True for an `ImageBitmap` or a canvas element. */
export function isRendered(value: unknown): value is Rendered {
  return (
    (typeof ImageBitmap !== 'undefined' && value instanceof ImageBitmap) ||
    (typeof HTMLCanvasElement !== 'undefined' && value instanceof HTMLCanvasElement)
  );
}

/**
 * A bitmap of `source` with at most `maxPixels` pixels (downscaled, same
 * aspect, when larger). A bitmap passed in is returned as is when it fits,
 * and closed when a smaller copy replaces it.
 */
export async function bitmapWithin(source: Rendered, maxPixels: number): Promise<ImageBitmap> {
  const size = { width: source.width, height: source.height };
  const fitted = fitWithin(size, maxPixels);
  const same = fitted.width === size.width && fitted.height === size.height;
  if (same && source instanceof ImageBitmap) return source;
  const bitmap = same
    ? await createImageBitmap(source)
    : await createImageBitmap(source, {
        resizeWidth: fitted.width,
        resizeHeight: fitted.height,
        resizeQuality: 'medium',
      });
  if (source instanceof ImageBitmap) source.close();
  return bitmap;
}

/** Frees a canvas's backing store now rather than at garbage collection. */
export function releaseCanvas(canvas: HTMLCanvasElement): void {
  canvas.width = 0;
  canvas.height = 0;
}

/** Lets the page paint and take input before the next capture step. */
export function yieldToMain(): Promise<void> {
  const scheduler = (globalThis as { scheduler?: { yield?: () => Promise<void> } }).scheduler;
  if (typeof scheduler?.yield === 'function') return scheduler.yield();
  return new Promise((resolve) => setTimeout(resolve, 0));
}
