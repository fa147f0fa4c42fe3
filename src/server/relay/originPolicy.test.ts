import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import {
  DEFAULT_RELAY_ORIGINS,
  loopbackOrigins,
  normalizeOrigin,
  originAllowlist,
  TRADESCRIPT_EXTENSION_ORIGIN,
} from './originPolicy.js';
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

  it('admits the TradeScript extension by default: the id Chromium derives from the manifest key', () => {
    const manifestUrl = new URL('../../../extension/public/manifest.json', import.meta.url);
    const { key } = JSON.parse(readFileSync(manifestUrl, 'utf8')) as { key: string };
    const hex = createHash('sha256').update(Buffer.from(key, 'base64')).digest('hex').slice(0, 32);
    const id = [...hex].map((digit) => String.fromCharCode(97 + parseInt(digit, 16))).join('');
    expect(TRADESCRIPT_EXTENSION_ORIGIN).toBe(`chrome-extension://${id}`);
    expect(normalizeOrigin(TRADESCRIPT_EXTENSION_ORIGIN)).toBe(TRADESCRIPT_EXTENSION_ORIGIN);
    expect(originAllowlist(() => DEFAULT_RELAY_ORIGINS)(TRADESCRIPT_EXTENSION_ORIGIN)).toBe(true);
  });

  it('bounds close reasons to the 123 bytes a WebSocket close frame carries', () => {
    expect(Buffer.byteLength(closeReason('é'.repeat(100)))).toBeLessThanOrEqual(123);
    expect(closeReason('short')).toBe('short');
  });
});
