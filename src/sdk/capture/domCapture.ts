/**
 * DOM widget capture (SPEC §8). The snapshot engines load on first use
 * (dynamic `import()`, their own chunks: SPEC §12). Default `@zumer/snapdom`
 * with `fast: false` (the clone yields to the page about every frame), rows
 * the widget's scroll boxes hide left out (`excludeMode: "hide"`), rasterized
 * with `toCanvas` at a pixel ratio already within the budget, then made an
 * `ImageBitmap` so the bridge worker can take it by transfer, scale and encode.
 * `html-to-image` is the selectable alternative.
 */
import type { CaptureOutcome, RenderSource } from '../types.js';
import { bitmapWithin, releaseCanvas, yieldToMain } from './bitmap.js';
import { rasterRatio, rasterSize } from './sizing.js';
import { scrolledOutOfView } from './scrollHidden.js';

type DomRender = Extract<RenderSource, { kind: 'dom' }>;

async function withSnapdom(element: HTMLElement, ratio: number, hidden: Set<Element>): Promise<HTMLCanvasElement> {
  const { snapdom } = await import('@zumer/snapdom');
  // The first import evaluates the engine in this task: let the page have a turn before cloning.
  await yieldToMain();
  const result = await snapdom(element, {
    fast: false,
    dpr: ratio,
    scale: 1,
    exclude: hidden.size > 0 ? (el: Element) => hidden.has(el) : undefined,
    excludeMode: 'hide',
  });
  // Cloning and styling were one run of small tasks; the raster is another.
  await yieldToMain();
  return result.toCanvas();
}

async function withHtmlToImage(element: HTMLElement, ratio: number, hidden: Set<Element>): Promise<HTMLCanvasElement> {
  const { toCanvas } = await import('html-to-image');
  await yieldToMain();
  // The clone is drawn at the image's origin: an offset the widget has on the page would push it out of frame.
  const style = { margin: '0', left: '0', top: '0', right: 'auto', bottom: 'auto', transform: 'none' };
  return toCanvas(element, { pixelRatio: ratio, style, filter: (node: HTMLElement) => !hidden.has(node) });
}

/** Rasterizes a DOM widget; the size reported is its full resolution at the device pixel ratio. */
export async function captureDom(render: DomRender, maxPixels: number): Promise<CaptureOutcome | null> {
  const { element } = render;
  const box = element.getBoundingClientRect();
  if (!element.isConnected || box.width < 1 || box.height < 1) return null;
  const deviceRatio = globalThis.devicePixelRatio || 1;
  const ratio = rasterRatio(box.width, box.height, deviceRatio, maxPixels);
  const hidden = scrolledOutOfView(element);
  const engine = render.engine === 'html-to-image' ? withHtmlToImage : withSnapdom;
  const canvas = await engine(element, ratio, hidden);
  await yieldToMain();
  try {
    const bitmap = await bitmapWithin(canvas, maxPixels);
    const full = rasterSize(box.width, box.height, deviceRatio);
    return {
      ok: true,
      bitmap,
      width: Math.max(full.width, bitmap.width),
      height: Math.max(full.height, bitmap.height),
    };
  } finally {
    releaseCanvas(canvas);
  }
}
