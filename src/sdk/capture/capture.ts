/**
 * `host.capture` (SPEC §8): which targets can be captured, and the canvas and
 * DOM paths to a transferable bitmap. Never throws: a failing render is
 * `control_failed`.
 */
import { makeError, type ErrorObject } from '../../protocol/index.js';
import type { TargetEntry } from '../declare/targets.js';
import type { CaptureOptions, CaptureOutcome, RenderSource } from '../types.js';
import { bitmapWithin, isRendered } from './bitmap.js';
import { phaseMark } from '../phaseMark.js';

/** The DOM path (layer planning, compositing, the engines) loads at the first DOM capture: SPEC §12. */
async function captureDom(
  render: Extract<RenderSource, { kind: 'dom' }>,
  maxPixels: number,
): Promise<CaptureOutcome | null> {
  const dom = await import('./domCapture.js');
  return dom.captureDom(render, maxPixels);
}

const NOT_FOUND =
  'This target is not registered in the session; read availableTargets from tradescript_get_context on the session target.';
const SESSION =
  'A session target has no rendered root; snapshot a chart or widget target whose renderable is true in availableTargets.';
const NO_RENDER =
  'This target registered nothing to render; snapshot a chart or widget target whose renderable is true in availableTargets.';
const DENIED = 'Snapshots of this surface are unavailable (surface-policy): the terminal does not allow them.';
const FAILED = 'The terminal could not render this target now; re-read context and try again.';

/** True when a target can be captured (a chart or widget with a render source). */
export function isRenderable(entry: TargetEntry): boolean {
  return entry.target.scope !== 'session' && entry.registration.render !== undefined;
}

function refusal(entry: TargetEntry | undefined): ErrorObject | null {
  if (!entry) return makeError('target_not_found', NOT_FOUND);
  if (entry.target.scope === 'session') return makeError('target_not_renderable', SESSION);
  if (!entry.registration.render) return makeError('target_not_renderable', NO_RENDER);
  if (entry.registration.surfacePolicy?.denyCapture) {
    return makeError('control_unavailable', DENIED, { details: { reason: 'surface-policy' } });
  }
  return null;
}

async function captureCanvas(
  render: Extract<RenderSource, { kind: 'canvas' }>,
  maxPixels: number,
): Promise<CaptureOutcome | null> {
  const source: unknown = await render.capture();
  if (!isRendered(source) || source.width < 1 || source.height < 1) return null;
  const { width, height } = source;
  const bitmap = await bitmapWithin(source, maxPixels);
  return { ok: true, bitmap, width, height };
}

/** Captures one registered chart or widget within `options.maxPixels`. */
export async function captureTarget(entry: TargetEntry | undefined, options: CaptureOptions): Promise<CaptureOutcome> {
  phaseMark('page.capture');
  const refused = refusal(entry);
  if (refused) return { ok: false, error: refused };
  const render = entry?.registration.render;
  const maxPixels = Math.floor(options.maxPixels);
  if (!render || !(maxPixels >= 1)) {
    return { ok: false, error: makeError('internal_error', 'The capture was asked for with no pixel budget.') };
  }
  try {
    const outcome =
      render.kind === 'canvas' ? await captureCanvas(render, maxPixels) : await captureDom(render, maxPixels);
    return outcome ?? { ok: false, error: makeError('control_failed', FAILED) };
  } catch {
    return { ok: false, error: makeError('control_failed', FAILED) };
  }
}
