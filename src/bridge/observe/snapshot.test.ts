import fc from 'fast-check';
import { describe, expect, it, vi } from 'vitest';
import {
  DEFAULT_LIMITS,
  relayLimitsOf,
  MB,
  SNAPSHOT_MAX_SIDE,
  SnapshotDataSchema,
  makeError,
  type RelayLimits,
} from '../../protocol/index.js';
import type { CaptureOutcome, EncodedCapture } from './observeTypes.js';
import { chunkedBase64, encodeWithin, toBase64, type ImageEncoder, type SnapshotMime } from './snapshotEncode.js';
import { fitSnapshot, maxPixelsOf, shrinkForBytes } from './snapshotScale.js';
import { takeSnapshot } from './snapshotService.js';

const limits = relayLimitsOf(DEFAULT_LIMITS);
const PIXELS = DEFAULT_LIMITS.snapshotPixels;

describe('SPEC §8 snapshot sizes', () => {
  it('a capture within every bound keeps its size and is not scaled', () => {
    expect(fitSnapshot(1280, 720, { snapshotPixels: PIXELS })).toEqual({ width: 1280, height: 720, scaled: false });
  });

  it('maxWidth and maxHeight keep the aspect', () => {
    expect(fitSnapshot(1280, 720, { snapshotPixels: PIXELS, maxWidth: 640 })).toEqual({
      width: 640,
      height: 360,
      scaled: true,
    });
    expect(fitSnapshot(1280, 720, { snapshotPixels: PIXELS, maxHeight: 180 })).toEqual({
      width: 320,
      height: 180,
      scaled: true,
    });
    expect(fitSnapshot(1280, 720, { snapshotPixels: PIXELS, maxWidth: 4000 })).toEqual({
      width: 1280,
      height: 720,
      scaled: false,
    });
  });

  it('SPEC §6 a side over 8000 pixels and 12 MB decoded are downscaled, never refused', () => {
    expect(fitSnapshot(16000, 100, { snapshotPixels: PIXELS })).toEqual({
      width: SNAPSHOT_MAX_SIDE,
      height: 50,
      scaled: true,
    });
    const big = fitSnapshot(4000, 4000, { snapshotPixels: PIXELS });
    expect(big.scaled).toBe(true);
    expect(big.width * big.height * 4).toBeLessThanOrEqual(12 * MB);
    expect(big.width * big.height * 4).toBeGreaterThan(12 * MB * 0.99);
  });

  it('for any capture and bounds: within every bound, at least 1 × 1, scaled exactly when smaller', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 40_000 }),
        fc.integer({ min: 1, max: 40_000 }),
        fc.option(fc.integer({ min: 1, max: 10_000 }), { nil: undefined }),
        fc.option(fc.integer({ min: 1, max: 10_000 }), { nil: undefined }),
        fc.integer({ min: 4, max: PIXELS }),
        (width, height, maxWidth, maxHeight, snapshotPixels) => {
          const size = fitSnapshot(width, height, { maxWidth, maxHeight, snapshotPixels });
          expect(size.width).toBeGreaterThanOrEqual(1);
          expect(size.height).toBeGreaterThanOrEqual(1);
          expect(size.width).toBeLessThanOrEqual(Math.min(width, SNAPSHOT_MAX_SIDE, Math.max(1, maxWidth ?? Infinity)));
          expect(size.height).toBeLessThanOrEqual(
            Math.min(height, SNAPSHOT_MAX_SIDE, Math.max(1, maxHeight ?? Infinity)),
          );
          if (size.width > 1 && size.height > 1)
            expect(size.width * size.height).toBeLessThanOrEqual(maxPixelsOf(snapshotPixels));
          expect(size.scaled).toBe(size.width < width || size.height < height);
        },
      ),
      { numRuns: 500 },
    );
  });

  it('too many encoded bytes shrink the area by the overshoot, and by at least 10%', () => {
    const next = shrinkForBytes({ width: 1000, height: 1000, scaled: false }, 16 * MB, 4 * MB);
    expect(next).toEqual({ width: 450, height: 450, scaled: true });
    const small = shrinkForBytes({ width: 100, height: 100, scaled: false }, 4 * MB + 1, 4 * MB);
    expect(small).toEqual({ width: 89, height: 89, scaled: true });
  });
});

/** An encoder whose output is `bytesPerPixel` bytes per pixel; records every size it was asked for. */
function fakeEncoder(bytesPerPixel: number): ImageEncoder<unknown> & { sizes: string[] } {
  const sizes: string[] = [];
  return {
    sizes,
    async encode(_source, width, height, mimeType: SnapshotMime) {
      sizes.push(`${width}x${height}`);
      return { bytes: new Uint8Array(Math.max(1, Math.round(width * height * bytesPerPixel))), mimeType };
    },
  };
}

describe('SPEC §8 encoding within snapshotBytes', () => {
  it('an encoding over the byte limit is redone smaller until it fits, and says scaled', async () => {
    const encoder = fakeEncoder(3);
    const fitted = await encodeWithin(encoder, null, { width: 2000, height: 1000, scaled: false }, 'png', 4 * MB);
    expect(fitted?.bytes.byteLength).toBeLessThanOrEqual(4 * MB);
    expect(fitted?.size.scaled).toBe(true);
    expect(encoder.sizes.length).toBeGreaterThan(1);
  });

  it('an encoding that fits is kept as is', async () => {
    const encoder = fakeEncoder(0.5);
    const fitted = await encodeWithin(encoder, null, { width: 1280, height: 720, scaled: false }, 'jpeg', 4 * MB);
    expect(fitted).toMatchObject({ mimeType: 'image/jpeg', size: { width: 1280, height: 720, scaled: false } });
    expect(encoder.sizes).toEqual(['1280x720']);
  });

  it('base64 of any bytes matches Node’s', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 100_000 }), (bytes) => {
        expect(toBase64(bytes)).toBe(Buffer.from(bytes).toString('base64'));
        expect(chunkedBase64(bytes)).toBe(Buffer.from(bytes).toString('base64'));
      }),
      { numRuns: 50 },
    );
  });

  it('SPEC §8 base64 uses the engine’s own Uint8Array.prototype.toBase64 where there is one', () => {
    const bytes = new Uint8Array([1, 2, 3]);
    const native = vi.fn(() => 'from the engine');
    Object.defineProperty(bytes, 'toBase64', { value: native });
    expect(toBase64(bytes)).toBe('from the engine');
    expect(native).toHaveBeenCalledTimes(1);
  });
});

describe('SPEC §3 §8 takeSnapshot', () => {
  function bitmap(width: number, height: number) {
    const state = { closed: 0 };
    const fake = { width, height, close: () => void state.closed++ } as unknown as ImageBitmap;
    return { fake, state };
  }
  const op = (extra: object = {}) => ({
    kind: 'snapshot' as const,
    target: { scope: 'widget' as const, widgetId: 'w' },
    format: 'png' as const,
    ...extra,
  });

  it('captures with maxPixels, reports progress after capture and after encode, answers data and image, closes the bitmap', async () => {
    const { fake, state } = bitmap(1600, 900);
    const asked: unknown[] = [];
    const progress: Array<[number, number | undefined]> = [];
    const port = {
      capture: async (target: unknown, options: unknown): Promise<CaptureOutcome> => (
        asked.push(target, options),
        { ok: true, bitmap: fake, width: 1600, height: 900 }
      ),
    };
    const outcome = await takeSnapshot(
      { port, encoder: fakeEncoder(1) as ImageEncoder, now: () => Date.parse('2026-01-01T00:00:00Z') },
      limits as RelayLimits,
      op({ maxWidth: 800 }),
      (p, t) => progress.push([p, t]),
    );
    expect(asked).toEqual([{ scope: 'widget', widgetId: 'w' }, { maxPixels: (12 * MB) / 4 }]);
    expect(progress).toEqual([
      [1, 2],
      [2, 2],
    ]);
    expect(state.closed).toBe(1);
    if (!outcome.ok) throw new Error(outcome.error.code);
    expect(SnapshotDataSchema.parse(outcome.data)).toEqual({
      mimeType: 'image/png',
      width: 800,
      height: 450,
      byteLength: 360_000,
      scaled: true,
      target: { scope: 'widget', widgetId: 'w' },
      capturedAt: '2026-01-01T00:00:00.000Z',
    });
    expect(outcome.image?.mimeType).toBe('image/png');
    expect(Buffer.from(outcome.image?.base64 ?? '', 'base64').byteLength).toBe(360_000);
  });

  it('a 4 MB encoded limit downscales further instead of failing', async () => {
    const { fake } = bitmap(1800, 1700);
    const port = {
      capture: async (): Promise<CaptureOutcome> => ({ ok: true, bitmap: fake, width: 1800, height: 1700 }),
    };
    const outcome = await takeSnapshot(
      { port, encoder: fakeEncoder(4) as ImageEncoder },
      limits as RelayLimits,
      op(),
      () => undefined,
    );
    if (!outcome.ok) throw new Error(outcome.error.code);
    expect(outcome.data).toMatchObject({ scaled: true });
    expect(SnapshotDataSchema.parse(outcome.data).byteLength).toBeLessThanOrEqual(4 * MB);
  });

  it('a session target is target_not_renderable without asking the page; a page error passes through', async () => {
    let asked = 0;
    const port = {
      capture: async (): Promise<CaptureOutcome> => (
        asked++,
        { ok: false, error: makeError('target_not_found', 'No such widget.') }
      ),
    };
    const session = await takeSnapshot(
      { port },
      limits as RelayLimits,
      { ...op(), target: { scope: 'session' } },
      () => undefined,
    );
    expect(!session.ok && session.error.code).toBe('target_not_renderable');
    expect(asked).toBe(0);
    const missing = await takeSnapshot({ port }, limits as RelayLimits, op(), () => undefined);
    expect(!missing.ok && missing.error.code).toBe('target_not_found');
  });

  describe('a capture the browser already encoded (the extension’s visible tab)', () => {
    const png = new Uint8Array([0x89, 0x50, 0x4e, 0x47, 1, 2, 3, 4, 5]);
    const encoded = (width = 1280, height = 720): EncodedCapture => ({ ok: true, png, width, height });
    const encodedPort = (capture: EncodedCapture) => ({ capture: async () => capture });

    it('a PNG at its own size that fits is the answer byte for byte: never decoded, never encoded again', async () => {
      const encoder = fakeEncoder(1);
      const decodePng = vi.fn();
      const progress: number[] = [];
      const outcome = await takeSnapshot(
        { port: encodedPort(encoded()), encoder: encoder as ImageEncoder, decodePng },
        limits as RelayLimits,
        op(),
        (p) => progress.push(p),
      );
      if (!outcome.ok) throw new Error(outcome.error.code);
      expect(Buffer.from(outcome.image?.base64 ?? '', 'base64')).toEqual(Buffer.from(png));
      expect(SnapshotDataSchema.parse(outcome.data)).toMatchObject({
        mimeType: 'image/png',
        width: 1280,
        height: 720,
        byteLength: png.byteLength,
        scaled: false,
      });
      expect(progress).toEqual([1, 2]);
      expect(decodePng).not.toHaveBeenCalled();
      expect(encoder.sizes).toEqual([]);
    });

    // Each row: why, the request, the limits, bytes per pixel of the fake encoder, the size encoded, the MIME type.
    it.each([
      ['a bound shrinks it', op({ maxWidth: 640 }), limits, 1, '640x360', 'image/png'],
      ['another format is asked for', { ...op(), format: 'webp' as const }, limits, 1, '1280x720', 'image/webp'],
      [
        'its bytes exceed snapshotBytes (a fresh encoding fits)',
        op(),
        { ...limits, snapshotBytes: 4 },
        0.000001,
        '1280x720',
        'image/png',
      ],
    ])(
      'is decoded, scaled and encoded as a page capture is when %s; the bitmap is closed',
      async (_, asked, bound, bytesPerPixel, first, mimeType) => {
        const { fake, state } = bitmap(1280, 720);
        const encoder = fakeEncoder(bytesPerPixel);
        const decoded: Uint8Array[] = [];
        const decodePng = async (bytes: Uint8Array<ArrayBuffer>) => (decoded.push(bytes), fake);
        const outcome = await takeSnapshot(
          { port: encodedPort(encoded()), encoder: encoder as ImageEncoder, decodePng },
          bound as RelayLimits,
          asked,
          () => undefined,
        );
        expect(decoded).toEqual([png]);
        expect(state.closed).toBe(1);
        expect(encoder.sizes).toEqual([first]);
        if (!outcome.ok) throw new Error(outcome.error.code);
        expect(outcome.image?.mimeType).toBe(mimeType);
        expect(SnapshotDataSchema.parse(outcome.data).byteLength).not.toBe(png.byteLength);
      },
    );

    it('a PNG the worker cannot decode is internal_error, never the undecoded bytes', async () => {
      const outcome = await takeSnapshot(
        { port: encodedPort(encoded()), decodePng: () => Promise.reject(new Error('bad png')) },
        limits as RelayLimits,
        op({ maxWidth: 10 }),
        () => undefined,
      );
      expect(!outcome.ok && outcome.error.code).toBe('internal_error');
    });
  });

  it('an encoder failure is internal_error and the bitmap is still closed', async () => {
    const { fake, state } = bitmap(10, 10);
    const port = { capture: async (): Promise<CaptureOutcome> => ({ ok: true, bitmap: fake, width: 10, height: 10 }) };
    const broken: ImageEncoder = { encode: () => Promise.reject(new Error('no canvas')) };
    const outcome = await takeSnapshot({ port, encoder: broken }, limits as RelayLimits, op(), () => undefined);
    expect(!outcome.ok && outcome.error.code).toBe('internal_error');
    expect(state.closed).toBe(1);
  });
});
