/**
 * Draws a planned widget's layers, in paint order, into one canvas at the
 * capture's pixel ratio (already within the pixel budget), so no capture
 * step runs long (SPEC §8, §12). Canvas layers are copied from their own
 * pixels; each layer is drawn under the padding boxes of the ancestors that
 * clip it.
 */
import { yieldToMain } from './bitmap.js';
import type { Layer } from './layerPlan.js';
import { rasterLayer, type LayerEngine, type LayerRaster } from './layerRaster.js';
import type { ClipBox } from './layerStyle.js';
import { rasterSize } from './sizing.js';
import { phaseMark } from '../phaseMark.js';

type Context2D = OffscreenCanvasRenderingContext2D;
type Settled = { raster: LayerRaster } | { error: unknown } | null;

/** Where layers are drawn: the context, the widget and its box as planned. */
interface Stage {
  context: Context2D;
  root: HTMLElement;
  origin: DOMRect;
}

function applyClips(context: Context2D, clips: readonly ClipBox[]): void {
  for (const clip of clips) {
    context.beginPath();
    context.roundRect(clip.left, clip.top, clip.right - clip.left, clip.bottom - clip.top, clip.radii);
    context.clip();
  }
}

function drawPixels(stage: Stage, layer: Extract<Layer, { kind: 'pixels' }>): void {
  const { box, canvas } = layer;
  stage.context.drawImage(canvas, box.left, box.top, box.right - box.left, box.bottom - box.top);
}

function drawRaster(stage: Stage, element: HTMLElement, raster: LayerRaster): void {
  // Read after the capture, which yielded (the page may have scrolled): placed relative to the widget as planned.
  const rect = element.getBoundingClientRect();
  const now = stage.root.getBoundingClientRect();
  const x = rect.left - now.left + stage.origin.left - raster.offsetX;
  const y = rect.top - now.top + stage.origin.top - raster.offsetY;
  stage.context.drawImage(raster.canvas, x, y, raster.width, raster.height);
}

/**
 * Starts the layers' rasterizations one after another (not at once: the
 * cloning is main-thread work either way, and concurrent captures measured
 * no faster), each settling without throwing so none goes unhandled.
 */
function startRasters(
  snapdom: LayerEngine,
  root: HTMLElement,
  layers: readonly Layer[],
  ratio: number,
): Promise<Settled>[] {
  let previous: Promise<unknown> = Promise.resolve();
  return layers.map((layer) => {
    if (layer.kind !== 'dom') return Promise.resolve(null);
    const settled = previous.then(() =>
      rasterLayer(snapdom, layer.element, layer.hide, ratio, layer.element === root).then(
        (raster): Settled => ({ raster }),
        (error: unknown): Settled => ({ error }),
      ),
    );
    previous = settled;
    return settled;
  });
}

/**
 * The stage canvas of the last capture, kept for the next one of the same
 * size: a new canvas's first drawing allocates its backing store (about
 * 10 ms at 1280×720 here), which `transferToImageBitmap` gives away with the
 * pixels; `createImageBitmap` copies them and leaves the canvas to reuse.
 * A capture takes it while it draws, so two captures at once never share one.
 */
let spare: OffscreenCanvas | null = null;

function stageCanvas(width: number, height: number): OffscreenCanvas {
  const kept = spare;
  spare = null;
  return kept?.width === width && kept.height === height ? kept : new OffscreenCanvas(width, height);
}

/**
 * Draws `layers` of `root` (whose box was `box` when they were planned) at
 * `ratio` device pixels per CSS pixel and hands over the result as a
 * transferable bitmap.
 */
export async function compositeLayers(
  snapdom: LayerEngine,
  root: HTMLElement,
  box: DOMRect,
  layers: readonly Layer[],
  ratio: number,
): Promise<ImageBitmap> {
  const size = rasterSize(box.width, box.height, ratio);
  const canvas = stageCanvas(size.width, size.height);
  const context = canvas.getContext('2d');
  if (!context) throw new Error('2d context unavailable');
  context.reset();
  context.setTransform(size.width / box.width, 0, 0, size.height / box.height, 0, 0);
  context.translate(-box.left, -box.top);
  const stage: Stage = { context, root, origin: box };
  const pending = startRasters(snapdom, root, layers, ratio);
  for (const [index, layer] of layers.entries()) {
    const settled = await pending[index];
    if (settled && 'error' in settled) throw settled.error;
    context.save();
    applyClips(context, layer.clips);
    if (layer.kind === 'pixels') drawPixels(stage, layer);
    else if (settled) drawRaster(stage, layer.element, settled.raster);
    context.restore();
  }
  phaseMark('page.composited');
  await yieldToMain();
  const bitmap = await createImageBitmap(canvas);
  spare = canvas;
  return bitmap;
}
