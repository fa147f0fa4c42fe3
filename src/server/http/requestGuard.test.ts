import { describe, expect, it } from 'vitest';
import { hostMatches, isLoopbackHost, secretEquals } from './requestGuard.js';

describe('Host checks (SPEC §9 DNS-rebinding protection)', () => {
  const loopback = { host: '127.0.0.1', port: 7391 };

  it('accepts loopback names with the bound port on a loopback bind', () => {
    for (const host of ['127.0.0.1:7391', 'localhost:7391', '[::1]:7391', 'LOCALHOST:7391']) {
      expect(hostMatches(host, loopback)).toBe(true);
    }
  });

  it('refuses other names, other ports, a missing Host and junk', () => {
    for (const host of [
      undefined,
      '',
      'evil.example:7391',
      '127.0.0.1:7392',
      '127.0.0.1',
      '127.0.0.1:7391/x',
      'a@127.0.0.1:7391',
    ]) {
      expect(hostMatches(host, loopback)).toBe(false);
    }
  });

  it('on a LAN bind accepts only that address; on a wildcard bind only IP literals', () => {
    expect(hostMatches('192.168.1.5:7391', { host: '192.168.1.5', port: 7391 })).toBe(true);
    expect(hostMatches('127.0.0.1:7391', { host: '192.168.1.5', port: 7391 })).toBe(false);
    expect(hostMatches('10.0.0.2:7391', { host: '0.0.0.0', port: 7391 })).toBe(true);
    expect(hostMatches('rebind.example:7391', { host: '0.0.0.0', port: 7391 })).toBe(false);
  });

  it('knows loopback hosts', () => {
    expect(['127.0.0.1', '127.1.2.3', '::1', '[::1]', 'localhost'].every(isLoopbackHost)).toBe(true);
    expect(['0.0.0.0', '192.168.1.5', 'example.com'].some(isLoopbackHost)).toBe(false);
  });

  it('compares secrets of any length without throwing', () => {
    expect(secretEquals('abc', 'abc')).toBe(true);
    expect(secretEquals('abc', 'abcd')).toBe(false);
  });
});
