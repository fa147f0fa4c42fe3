import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ContextDataSchema, SNAPSHOT_MAX_SIDE, type Target } from '../../protocol/index.js';
import { createTerminalHost } from '../host.js';
import { dataOf } from '../testing/expect.js';
import { CHART, SESSION, request } from '../testing/fixtures.js';
import type { CaptureOutcome } from '../types.js';
import { fitWithin, rasterRatio, rasterSize } from './sizing.js';

const WIDGET: Target = { scope: 'widget', widgetId: 'blotter' };

function errorCode(outcome: CaptureOutcome): string {
  if (outcome.ok) throw new Error('expected a refusal');
  return outcome.error.code;
}

describe('SPEC §8 capture sizes', () => {
  it('a raster at the chosen ratio never exceeds maxPixels or the per-side maximum', () => {
    fc.assert(
      fc.property(
        fc.double({ min: 1, max: 20_000, noNaN: true }),
        fc.double({ min: 1, max: 20_000, noNaN: true }),
        fc.constantFrom(1, 1.25, 2, 3),
        fc.integer({ min: 1, max: 12 * 1024 * 1024 }),
        (w, h, device, maxPixels) => {
          const ratio = rasterRatio(w, h, device, maxPixels);
          const size = rasterSize(w, h, ratio);
          expect(ratio).toBeLessThanOrEqual(device);
          if (maxPixels >= 4) expect(size.width * size.height).toBeLessThanOrEqual(maxPixels);
          expect(Math.max(size.width, size.height)).toBeLessThanOrEqual(SNAPSHOT_MAX_SIDE);
        },
      ),
    );
  });

  it('keeps the device ratio when the capture already fits, and pre-scales when it does not', () => {
    expect(rasterRatio(400, 300, 2, 1_000_000)).toBe(2);
    const ratio = rasterRatio(1280, 720, 2, 1280 * 720);
    expect(ratio).toBeLessThanOrEqual(1);
    expect(ratio).toBeGreaterThan(0.99);
    expect(fitWithin({ width: 4000, height: 1000 }, 4000 * 1000)).toEqual({ width: 4000, height: 1000 });
    const fitted = fitWithin({ width: 4000, height: 1000 }, 40_000);
    expect(fitted.width * fitted.height).toBeLessThanOrEqual(40_000);
    expect(Math.abs(fitted.width / fitted.height - 4)).toBeLessThan(0.1);
  });
});

describe('SPEC §8 which targets can be captured', () => {
  it('session → target_not_renderable; unknown → target_not_found; no render → target_not_renderable; denied → control_unavailable', async () => {
    const host = createTerminalHost({ environment: 'paper' });
    host.registerTarget(CHART, { label: 'plain chart' });
    host.registerTarget(WIDGET, {
      label: 'blotter',
      render: { kind: 'canvas', capture: () => Promise.reject(new Error('never called')) },
      surfacePolicy: { denyCapture: true },
    });
    expect(errorCode(await host.capture(SESSION, { maxPixels: 1000 }))).toBe('target_not_renderable');
    expect(errorCode(await host.capture({ scope: 'chart', chartId: 'nope' }, { maxPixels: 1000 }))).toBe(
      'target_not_found',
    );
    expect(errorCode(await host.capture(CHART, { maxPixels: 1000 }))).toBe('target_not_renderable');
    const denied = await host.capture(WIDGET, { maxPixels: 1000 });
    expect(denied).toMatchObject({
      ok: false,
      error: { code: 'control_unavailable', details: { reason: 'surface-policy' } },
    });
  });

  it('a render source that fails or hands over something else is control_failed, never a throw', async () => {
    const host = createTerminalHost({ environment: 'paper' });
    host.registerTarget(CHART, {
      label: 'chart',
      render: { kind: 'canvas', capture: () => Promise.reject(new Error('gl lost')) },
    });
    host.registerTarget(WIDGET, {
      label: 'w',
      render: { kind: 'canvas', capture: () => Promise.resolve({} as ImageBitmap) },
    });
    const failed = await host.capture(CHART, { maxPixels: 1000 });
    expect(errorCode(failed)).toBe('control_failed');
    expect(JSON.stringify(failed)).not.toContain('gl lost');
    expect(errorCode(await host.capture(WIDGET, { maxPixels: 1000 }))).toBe('control_failed');
    expect(errorCode(await host.capture(WIDGET, { maxPixels: 0 }))).toBe('internal_error');
  });

  it('availableTargets and capabilities say renderable only for a chart or widget with a render source', async () => {
    const host = createTerminalHost({ environment: 'paper' });
    host.registerTarget(CHART, {
      label: 'chart',
      render: { kind: 'canvas', capture: () => Promise.reject(new Error('x')) },
    });
    host.registerTarget(WIDGET, { label: 'plain widget' });
    expect(() =>
      host.registerTarget(SESSION, {
        label: 's',
        render: { kind: 'canvas', capture: () => Promise.reject(new Error('x')) },
      }),
    ).toThrow(/no rendered root/);
    const context = ContextDataSchema.parse(dataOf(await host.handle(request({ kind: 'context', target: CHART }))));
    expect(context.capabilities.renderable).toBe(true);
    expect(context.availableTargets.map((t) => [t.target.scope, t.renderable])).toEqual([
      ['session', false],
      ['chart', true],
      ['widget', false],
    ]);
  });
});
