import { describe, expect, it } from 'vitest';
import { loopbackOrigins, normalizeOrigin, originAllowlist } from './originPolicy.js';
import { closeReason } from './upgrade.js';

describe('relay Origin allowlist (SPEC §9)', () => {
  it('normalizes origins as browsers send them and refuses anything else', () => {
    expect(normalizeOrigin('HTTP://LOCALHOST:7392/')).toBe('http://localhost:7392');
    expect(normalizeOrigin('https://terminal.example:443')).toBe('https://terminal.example');
    expect(normalizeOrigin(`chrome-extension://${'B'.repeat(32)}`)).toBe(`chrome-extension://${'b'.repeat(32)}`);
    for (const bad of [
      'null',
      'file:///x',
      'https://a.example/path',
      'https://u:p@a.example',
      'chrome-extension://short',
      'ws://a',
    ]) {
      expect(normalizeOrigin(bad)).toBeNull();
    }
  });

  it('allows the demo’s loopback origins and configured ones only', () => {
    const allowed = originAllowlist(() => [...loopbackOrigins(7392), 'https://terminal.example']);
    expect(
      ['http://127.0.0.1:7392', 'http://localhost:7392', 'http://[::1]:7392', 'https://terminal.example'].every(
        allowed,
      ),
    ).toBe(true);
    expect([undefined, 'http://127.0.0.1:7393', 'https://evil.example', 'null'].some(allowed)).toBe(false);
  });

  it('bounds close reasons to the 123 bytes a WebSocket close frame carries', () => {
    expect(Buffer.byteLength(closeReason('é'.repeat(100)))).toBeLessThanOrEqual(123);
    expect(closeReason('short')).toBe('short');
  });
});
