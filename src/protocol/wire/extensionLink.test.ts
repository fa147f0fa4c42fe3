import { describe, expect, it } from 'vitest';
import {
  EXTENSION_LINK_TAG,
  ExtensionMessageSchema,
  HandshakeMessageSchema,
  PageMessageSchema,
  PopupCommandSchema,
  isSiteOrigin,
} from './extensionLink.js';
import { DEFAULT_LIMITS } from '../limits.js';
import { relayLimitsOf } from './relay.js';

const scope = {
  t: 'scope',
  key: 1,
  scope: {
    sessionId: 's_1',
    attachment: { attachmentId: 'a', namespace: 'n', clientName: 'c' },
    adapter: { maxAccess: 'write', allowControls: null },
    limits: relayLimitsOf(DEFAULT_LIMITS),
  },
};
const request = (op: unknown) => ({ t: 'call', id: 'r1', key: 1, deadlineMs: 30_000, op });

describe('SPEC §10 the extension link’s messages are parsed at every hop', () => {
  it('the window handshake is tagged and versioned; anything else is not a handshake', () => {
    expect(HandshakeMessageSchema.safeParse({ tag: EXTENSION_LINK_TAG, v: 1, t: 'hello' }).success).toBe(true);
    expect(HandshakeMessageSchema.safeParse({ tag: EXTENSION_LINK_TAG, v: 2, t: 'hello' }).success).toBe(false);
    expect(
      HandshakeMessageSchema.safeParse({ tag: EXTENSION_LINK_TAG, v: 1, t: 'hello', credential: 'x' }).success,
    ).toBe(false);
  });

  it('the page is asked only for what its SDK answers: never a subscription or a snapshot', () => {
    expect(ExtensionMessageSchema.safeParse(scope).success).toBe(true);
    expect(ExtensionMessageSchema.safeParse(request({ kind: 'context', target: { scope: 'session' } })).success).toBe(
      true,
    );
    const snapshot = { kind: 'snapshot', target: { scope: 'chart', chartId: 'c' }, format: 'png' };
    expect(ExtensionMessageSchema.safeParse(request(snapshot)).success).toBe(false);
  });

  it('page messages with unknown kinds or extra keys are refused', () => {
    expect(PageMessageSchema.safeParse({ t: 'events', h: [1, -2], p: [{}, null] }).success).toBe(true);
    expect(PageMessageSchema.safeParse({ t: 'events', h: [1.5], p: [{}] }).success).toBe(false);
    expect(PageMessageSchema.safeParse({ t: 'credential', secret: 'x' }).success).toBe(false);
    expect(PageMessageSchema.safeParse({ t: 'located', id: 'x1', view: null, extra: 1 }).success).toBe(false);
  });

  it('site origins are exactly what the browser reports: http(s), no path, normalized', () => {
    expect(isSiteOrigin('http://127.0.0.1:7392')).toBe(true);
    expect(isSiteOrigin('https://terminal.example')).toBe(true);
    for (const bad of [
      'https://terminal.example/',
      'HTTPS://x.example',
      'https://x.example:443',
      'chrome-extension://abc',
      'http://u@x',
    ]) {
      expect(isSiteOrigin(bad)).toBe(false);
    }
    expect(PopupCommandSchema.safeParse({ t: 'allowSite', origin: 'https://x.example/', grant: 'write' }).success).toBe(
      false,
    );
  });
});
