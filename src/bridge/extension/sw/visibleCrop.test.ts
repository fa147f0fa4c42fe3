import { describe, expect, it } from 'vitest';
import type { LinkView } from '../../../protocol/wire/hostLink.js';
import { cropRegion, keepsWhole, pngSize, wholeOnScreen } from './visibleCrop.js';

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

describe('SPEC §8 a target that is the whole visible tab keeps the browser’s PNG', () => {
  const header = (width: number, height: number) => {
    const bytes = new Uint8Array(33);
    bytes.set([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13, 0x49, 0x48, 0x44, 0x52]);
    new DataView(bytes.buffer).setUint32(16, width);
    new DataView(bytes.buffer).setUint32(20, height);
    return bytes;
  };

  it('reads a PNG’s size from its header, and nothing from bytes that are not a PNG', () => {
    expect(pngSize(header(2560, 1440))).toEqual({ width: 2560, height: 1440 });
    expect(pngSize(header(2560, 1440).subarray(0, 20))).toBeNull();
    expect(pngSize(new Uint8Array(64))).toBeNull();
    const jpeg = header(10, 10);
    jpeg[12] = 0x4a;
    expect(pngSize(jpeg)).toBeNull();
    expect(pngSize(header(0, 10))).toBeNull();
  });

  it('keeps the capture whole only when the crop is all of it at its own size', () => {
    const whole = cropRegion(view({ x: 0, y: 0, width: 800, height: 600 }), 1600, 1200, 12e6)!;
    expect(keepsWhole(whole, 1600, 1200)).toBe(true);
    const inset = cropRegion(view({ x: 1, y: 0, width: 799, height: 600 }), 1600, 1200, 12e6)!;
    expect(keepsWhole(inset, 1600, 1200)).toBe(false);
    const budget = cropRegion(view({ x: 0, y: 0, width: 800, height: 600 }), 1600, 1200, 1e6)!;
    expect(keepsWhole(budget, 1600, 1200)).toBe(false);
  });
});
