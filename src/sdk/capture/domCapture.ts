/**
 * DOM widget capture (SPEC §8). The snapshot engines load on first use
 * (dynamic `import()`, their own chunks: SPEC §12). Default `@zumer/snapdom`
 * with `fast: false` (the clone yields to the page about every frame), in
 * layers (layerPlan.ts): canvases drawn from their own pixels, heavy
 * containers cut so each rasterization is a short task, unchanged layers
 * reused; rows the widget's scroll boxes hide are left out; all drawn at a
 * pixel ratio already within the budget into one `ImageBitmap` the bridge
 * worker takes by transfer, scales and encodes. `html-to-image` is the
 * selectable alternative (one pass over the whole widget).
 */
import type { CaptureOutcome, RenderSource } from '../types.js';
import { bitmapWithin, releaseCanvas, yieldToMain } from './bitmap.js';
import { cutEllipsisText } from './ellipsis.js';
import { compositeLayers } from './layerComposite.js';
import { planLayers, type PlanOptions } from './layerPlan.js';
import { rasterRatio, rasterSize } from './sizing.js';
import { scrolledOutOfView } from './scrollHidden.js';
import { phaseMark } from '../phaseMark.js';

type DomRender = Extract<RenderSource, { kind: 'dom' }>;

/**
 * How finely the default engine cuts a widget. Measured on the demo terminal
 * (bench table 4, 2 loaded cores): 200 elements per layer cost about 30% more
 * wall time than one pass, for long tasks about as rare as at 350, which
 * costs about the same wall time as one pass.
 */
export const LAYER_PLAN: PlanOptions = { budget: 350 };

async function withSnapdom(element: HTMLElement, ratio: number, hidden: Set<Element>): Promise<ImageBitmap> {
  const { snapdom } = await import('@zumer/snapdom');
  // The first import evaluates the engine in this task: let the page have a turn before cloning.
  await yieldToMain();
  const box = element.getBoundingClientRect();
  const layers = planLayers(element, hidden, LAYER_PLAN);
  phaseMark('page.planned');
  await yieldToMain();
  // Once here instead of once per layer inside the engine (ellipsis.ts). One layer is one walk already, and
  // left to the engine its writes stay inside its capture, so an unchanged widget still comes from its memo.
  const layered = layers.filter((layer) => layer.kind === 'dom').length > 1;
  const restore = layered ? cutEllipsisText(element) : (): void => {};
  try {
    return await compositeLayers(snapdom, element, box, layers, ratio);
  } finally {
    restore();
  }
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
  // Reading the page's layout is work of its own (the request arrived in a task that may already be busy).
  await yieldToMain();
  phaseMark('page.survey');
  const hidden = scrolledOutOfView(element);
  const bitmap =
    render.engine === 'html-to-image'
      ? await viaCanvas(withHtmlToImage(element, ratio, hidden), maxPixels)
      : await bitmapWithin(await withSnapdom(element, ratio, hidden), maxPixels);
  phaseMark('page.bitmap');
  const full = rasterSize(box.width, box.height, deviceRatio);
  return { ok: true, bitmap, width: Math.max(full.width, bitmap.width), height: Math.max(full.height, bitmap.height) };
}

async function viaCanvas(rendering: Promise<HTMLCanvasElement>, maxPixels: number): Promise<ImageBitmap> {
  const canvas = await rendering;
  await yieldToMain();
  try {
    return await bitmapWithin(canvas, maxPixels);
  } finally {
    releaseCanvas(canvas);
  }
}
