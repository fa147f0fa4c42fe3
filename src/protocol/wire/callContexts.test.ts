import { describe, expect, it } from 'vitest';
import { DEFAULT_LIMITS, relayLimitsOf } from '../index.js';
import { CALL_CONTEXTS_KEPT, CallContextWindow, type CallContext } from './callContexts.js';

const base: CallContext = {
  attachment: { attachmentId: 'att-1', namespace: 'ns-1', clientName: 'client' },
  adapter: { maxAccess: 'write', allowControls: null },
  limits: relayLimitsOf(DEFAULT_LIMITS),
};

describe('SPEC §9 call contexts: both ends keep the same window of keys', () => {
  it('holds the newest 64 keys and drops the oldest first', () => {
    const window = new CallContextWindow();
    for (let key = 0; key < CALL_CONTEXTS_KEPT + 2; key++) expect(window.hold(key, base)).toBe(true);
    expect(window.get(0)).toBeUndefined();
    expect(window.get(1)).toBeUndefined();
    expect(window.get(2)).toBe(base);
    expect(window.get(CALL_CONTEXTS_KEPT + 1)).toBe(base);
  });

  it('refuses a key that is not greater than every key held before, and holds nothing for it', () => {
    const window = new CallContextWindow();
    expect(window.hold(5, base)).toBe(true);
    const other = { ...base, limits: { ...base.limits, resultBytes: 1 } };
    expect(window.hold(5, other)).toBe(false);
    expect(window.hold(3, other)).toBe(false);
    expect(window.get(5)).toBe(base);
    expect(window.get(3)).toBeUndefined();
  });
});
