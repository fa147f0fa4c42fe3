import { describe, expect, it } from 'vitest';
import { BROKER_TEXT_MAX, redactBrokerText, redactJson, safeAuthUrl, safeBrokerCode, safeRequestId } from './redact.js';

describe('SPEC §4 broker text redaction', () => {
  it('normalizes whitespace', () => {
    expect(redactBrokerText('  Order\n\trejected:   price  ')).toBe('Order rejected: price');
  });

  it('is null when blank or not text', () => {
    expect(redactBrokerText('   \n ')).toBeNull();
    expect(redactBrokerText('')).toBeNull();
    expect(redactBrokerText(undefined)).toBeNull();
    expect(redactBrokerText(42)).toBeNull();
  });

  it('is at most 1,000 characters', () => {
    const text = redactBrokerText('word '.repeat(1000));
    expect(text).not.toBeNull();
    expect(text!.length).toBeLessThanOrEqual(BROKER_TEXT_MAX);
    expect(text!.endsWith('…')).toBe(true);
  });

  it('keeps a short message that mentions a secret-ish key whole (nothing is cut)', () => {
    expect(redactBrokerText('token=abc is invalid')).toBe('token=abc is invalid');
  });

  it('is suppressed when a long token-like run sits at the truncation boundary', () => {
    const text = `${'a '.repeat(490)}${'Zx9'.repeat(20)} tail`;
    expect(text.slice(0, 999).length).toBe(999);
    expect(redactBrokerText(text)).toBeNull();
  });

  it('is suppressed when the boundary cuts the value of a secret-ish key', () => {
    const text = `${'b '.repeat(494)}password: hunter2xyz and more`;
    expect(text.slice(988, 1008)).toBe('password: hunter2xyz');
    expect(redactBrokerText(text)).toBeNull();
    const bearer = `${'c '.repeat(494)}Bearer abcdef more words`;
    expect(redactBrokerText(bearer)).toBeNull();
  });

  it('keeps truncated text when only ordinary words sit at the boundary', () => {
    const text = `${'d '.repeat(497)}ordinary words continue here`;
    const out = redactBrokerText(text);
    expect(out).not.toBeNull();
    expect(out!.length).toBe(BROKER_TEXT_MAX);
  });

  it('redacts every string of a result, keeping blank strings and shape', () => {
    expect(redactJson({ a: ' x  y ', b: [' '], c: 3, d: null, e: { f: 'g\nh' } })).toEqual({
      a: 'x y',
      b: [''],
      c: 3,
      d: null,
      e: { f: 'g h' },
    });
  });

  it('keeps request_id only as a bounded safe identifier', () => {
    expect(safeRequestId('req-1.a:b_c')).toBe('req-1.a:b_c');
    expect(safeRequestId('has space')).toBeNull();
    expect(safeRequestId('x'.repeat(129))).toBeNull();
    expect(safeRequestId('')).toBeNull();
    expect(safeBrokerCode(51016)).toBe('51016');
  });

  it('surfaces auth_url only as an http(s) URL, never anything else', () => {
    expect(safeAuthUrl('https://broker.example/auth')).toBe('https://broker.example/auth');
    expect(safeAuthUrl('javascript:alert(1)')).toBeNull();
    expect(safeAuthUrl('not a url')).toBeNull();
  });
});
