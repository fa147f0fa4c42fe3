import { describe, expect, it } from 'vitest';
import type { LinkView } from '../../../protocol/wire/hostLink.js';
import { cropRegion, wholeOnScreen } from './visibleCrop.js';

const view = (rect: LinkView['rect'], visible = true): LinkView => ({
  rect,
  viewport: { width: 800, height: 600 },
  devicePixelRatio: 2,
  visible,
});

describe('SPEC §8 the visible-tab capture is cropped to the target', () => {
  it('scales CSS pixels by the capture’s own width (device pixels) and keeps the full-resolution size', () => {
    const crop = cropRegion(view({ x: 10.4, y: 20, width: 300, height: 150 }), 1600, 1200, 12 * 1024 * 1024);
    expect(crop).toEqual({ sx: 21, sy: 40, sw: 600, sh: 300, outWidth: 600, outHeight: 300 });
  });

  it('draws a crop larger than the pixel budget smaller, same aspect, never over the budget', () => {
    const crop = cropRegion(view({ x: 0, y: 0, width: 800, height: 600 }), 1600, 1200, 120_000)!;
    expect(crop.outWidth * crop.outHeight).toBeLessThanOrEqual(120_000);
    expect(crop.outWidth / crop.outHeight).toBeCloseTo(4 / 3, 1);
  });

  it('leaves a target partly off screen, or a hidden tab, to the page’s capture', () => {
    expect(wholeOnScreen(view({ x: -20, y: 0, width: 100, height: 100 }))).toBe(false);
    expect(wholeOnScreen(view({ x: 750, y: 0, width: 100, height: 100 }))).toBe(false);
    expect(wholeOnScreen(view({ x: 0, y: 0, width: 100, height: 100 }, false))).toBe(false);
    expect(wholeOnScreen(view({ x: 0, y: 0, width: 0, height: 100 }))).toBe(false);
    expect(cropRegion(view({ x: 0, y: 590, width: 100, height: 100 }), 1600, 1200, 1e6)).toBeNull();
  });
});
