import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  checkJsonShape,
  checkResultShape,
  jsonByteLength,
  measureJsonShape,
  shapeFitsResultLimits,
  utf8Length,
} from './jsonLimits.js';

const bytes = (text: string): number => new TextEncoder().encode(text).byteLength;

describe('UTF-8 byte counts of the result limit (SPEC §6 resultBytes)', () => {
  it.each([
    ['empty', ''],
    ['ASCII', '{"from":1,"to":2,"symbol":"BTCUSDT"}'],
    ['two-byte', 'prix en €uro, déjà'],
    ['three-byte', '日本語のテキスト'],
    ['astral (surrogate pairs)', 'chart 📈 up 🚀'],
    ['a lone surrogate (encoded as U+FFFD)', 'a\ud800b'],
    ['DEL and the last ASCII units', '\u007f\u0000~'],
  ])('SPEC §6 %s text counts exactly its UTF-8 bytes', (_name, text) => {
    expect(utf8Length(text)).toBe(bytes(text));
  });

  it('SPEC §6 a value counts the UTF-8 bytes of its JSON text', () => {
    const value = { note: 'déjà 📈', n: [1, 2, 3] };
    expect(jsonByteLength(value)).toBe(bytes(JSON.stringify(value)));
    expect(jsonByteLength(undefined)).toBe(4);
  });
});

describe('a value measured once is held to several limits (issue 15 item 1)', () => {
  const json = fc.letrec<{ value: unknown }>((tie) => ({
    value: fc.oneof(
      { depthSize: 'medium' },
      fc.string({ maxLength: 12 }),
      fc.integer(),
      fc.constant(null),
      fc.array(tie('value'), { maxLength: 3 }),
      fc.dictionary(fc.string({ maxLength: 12 }), tie('value'), { maxKeys: 3 }),
    ),
  })).value;
  const limits = fc.record({
    jsonDepth: fc.integer({ min: 1, max: 12 }),
    stringLength: fc.integer({ min: 0, max: 12 }),
  });

  /** The value and every value inside it. */
  function parts(value: unknown): unknown[] {
    const out = [value];
    for (let i = 0; i < out.length; i++) {
      const node = out[i];
      if (node !== null && typeof node === 'object') out.push(...Object.values(node));
    }
    return out;
  }

  it('SPEC §6 the shape measured is the one checkJsonShape holds to its limits', () => {
    fc.assert(
      fc.property(json, limits, (value, bounds) => {
        const shape = measureJsonShape(value, { jsonDepth: 1_000, stringLength: 1_000 });
        if ('limit' in shape) throw new Error('a small value broke generous limits');
        const fits = shape.depth <= bounds.jsonDepth && shape.longestString <= bounds.stringLength;
        expect(checkJsonShape(value, bounds) === null).toBe(fits);
      }),
      { numRuns: 500 },
    );
  });

  it('SPEC §6 a value whose shape fits the result limits passes every depth and string check of every part', () => {
    fc.assert(
      fc.property(json, limits, (value, bounds) => {
        const shape = measureJsonShape(value, { jsonDepth: 1_000, stringLength: 1_000 });
        if ('limit' in shape || !shapeFitsResultLimits(shape, bounds)) return;
        for (const part of parts(value)) {
          expect(checkJsonShape(part, bounds)).toBeNull();
          expect(checkResultShape(part, bounds)).toBeNull();
        }
      }),
      { numRuns: 500 },
    );
  });
});
