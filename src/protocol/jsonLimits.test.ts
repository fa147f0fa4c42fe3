import { describe, expect, it } from 'vitest';
import { jsonByteLength, utf8Length } from './jsonLimits.js';

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
