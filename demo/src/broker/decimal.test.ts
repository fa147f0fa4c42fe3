import { describe, expect, it } from 'vitest';
import { div, formatDecimal, formatFixed, mul, parseDecimal, roundTo, truncateTo } from './decimal.js';

describe('exact decimals (SPEC §4: decimal values travel as strings)', () => {
  it('adds 0.1 and 0.2 to exactly 0.3, where floats give 0.30000000000000004', () => {
    expect(0.1 + 0.2).not.toBe(0.3);
    expect(formatDecimal(parseDecimal('0.1') + parseDecimal('0.2'))).toBe('0.3');
  });

  it('multiplies prices and quantities without float artifacts', () => {
    expect(formatDecimal(mul(parseDecimal('0.0003'), parseDecimal('67250.17')))).toBe('20.175051');
    expect(formatDecimal(mul(parseDecimal('1.1'), parseDecimal('1.1')))).toBe('1.21');
    expect(String(1.1 * 1.1)).toBe('1.2100000000000002');
  });

  it('rounds half away from zero and truncates quantities towards zero', () => {
    expect(formatDecimal(roundTo(parseDecimal('2.345'), 2))).toBe('2.35');
    expect(formatDecimal(roundTo(parseDecimal('-2.345'), 2))).toBe('-2.35');
    expect(formatDecimal(truncateTo(parseDecimal('1.999'), 2))).toBe('1.99');
    expect(formatFixed(parseDecimal('10'), 2)).toBe('10.00');
    expect(formatDecimal(div(parseDecimal('1'), parseDecimal('3')))).toBe('0.333333333333');
  });

  it('refuses what is not a decimal string', () => {
    expect(() => parseDecimal('1e5')).toThrow();
    expect(() => parseDecimal('0.1234567890123')).toThrow();
    expect(() => parseDecimal(' 1')).toThrow();
  });
});
