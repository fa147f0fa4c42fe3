import { describe, expect, it } from 'vitest';
import { readBridgeMode } from './bridgeMode.js';

describe('bridge mode', () => {
  it('is the extension only for ?bridge=extension, else the element', () => {
    expect(readBridgeMode('?bridge=extension')).toBe('extension');
    expect(readBridgeMode('?seed=3&bridge=extension&faults=')).toBe('extension');
    for (const search of ['', '?bridge=element', '?bridge=EXTENSION', '?bridge=', '?seed=3']) {
      expect(readBridgeMode(search)).toBe('element');
    }
  });
});
