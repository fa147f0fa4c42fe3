import { describe, expect, it } from 'vitest';
import { hostPermission, siteOriginOf } from './siteOrigin.js';

describe('SPEC §10 sites the person types into the popup', () => {
  it('become origins: loopback defaults to http, anything else to https; paths and queries are dropped', () => {
    expect(siteOriginOf('127.0.0.1:7392')).toBe('http://127.0.0.1:7392');
    expect(siteOriginOf('localhost:5173/app')).toBe('http://localhost:5173');
    expect(siteOriginOf('terminal.example')).toBe('https://terminal.example');
    expect(siteOriginOf(' https://Terminal.Example:443/x?y#z ')).toBe('https://terminal.example');
  });

  it('refuse what is not an http(s) site', () => {
    for (const input of ['', 'ftp://x.example', 'chrome-extension://abc', 'javascript:alert(1)', 'http://']) {
      expect(siteOriginOf(input)).toBeNull();
    }
  });

  it('ask for the host permission without a port (Chrome’s permissions take none)', () => {
    expect(hostPermission('http://127.0.0.1:7392')).toBe('http://127.0.0.1/*');
    expect(hostPermission('https://terminal.example')).toBe('https://terminal.example/*');
  });
});
