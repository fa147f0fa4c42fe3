import fc from 'fast-check';
import { isDeepStrictEqual } from 'node:util';
import { describe, expect, it } from 'vitest';
import { DEFAULT_LIMITS, relayLimitsOf } from '../index.js';
import { CALL_CONTEXTS_KEPT, CallContextWindow, sameCallContext, type CallContext } from './callContexts.js';

const base: CallContext = {
  attachment: { attachmentId: 'att-1', namespace: 'ns-1', clientName: 'client' },
  adapter: { maxAccess: 'write', allowControls: null },
  limits: relayLimitsOf(DEFAULT_LIMITS),
};

describe('SPEC §9 call contexts: both ends keep the same window of keys', () => {
  it('holds the newest 64 keys, drops the oldest first and tells who dropped it', () => {
    const window = new CallContextWindow();
    const dropped: number[] = [];
    for (let key = 0; key < CALL_CONTEXTS_KEPT + 2; key++) {
      expect(window.hold(key, base, (k) => dropped.push(k))).toBe(true);
    }
    expect(dropped).toEqual([0, 1]);
    expect(window.get(0)).toBeUndefined();
    expect(window.get(1)).toBeUndefined();
    expect(window.get(2)).toBe(base);
    expect(window.get(CALL_CONTEXTS_KEPT + 1)).toBe(base);
    expect(window.nextKey).toBe(CALL_CONTEXTS_KEPT + 2);
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

/** Contexts as plain JSON objects (fast-check's records have no prototype, which deep equality would count). */
const text = fc.constantFrom('', 'a', 'b', 'att-1', 'ns-1', 'client', 'c.*');
const contextArb: fc.Arbitrary<CallContext> = fc
  .record({
    attachment: fc.record({ attachmentId: text, namespace: text, clientName: text }),
    adapter: fc.record({
      maxAccess: fc.constantFrom('read' as const, 'write' as const, 'trade' as const),
      allowControls: fc.option(fc.array(text, { maxLength: 3 }), { nil: null }),
    }),
    limits: fc
      .record(
        Object.fromEntries(
          Object.entries(relayLimitsOf(DEFAULT_LIMITS)).map(([k, v]) => [k, fc.constantFrom(v, v - 1, 1)]),
        ) as Record<keyof CallContext['limits'], fc.Arbitrary<number>>,
      )
      .map((l) => l as CallContext['limits']),
  })
  .map((c) => JSON.parse(JSON.stringify(c)) as CallContext);

/** A copy of `c` with at most one leaf changed. */
function tweak(c: CallContext, which: number, value: string | number): CallContext {
  const copy = structuredClone(c);
  const leaves: Array<() => void> = [
    () => undefined,
    () => (copy.attachment.attachmentId = String(value)),
    () => (copy.attachment.namespace = String(value)),
    () => (copy.attachment.clientName = String(value)),
    () => (copy.adapter.maxAccess = value === 0 ? 'read' : 'trade'),
    () =>
      (copy.adapter.allowControls = copy.adapter.allowControls
        ? [...copy.adapter.allowControls, String(value)]
        : [String(value)]),
    () =>
      (copy.adapter.allowControls = copy.adapter.allowControls?.length ? copy.adapter.allowControls.slice(1) : null),
    () =>
      (copy.adapter.allowControls = copy.adapter.allowControls?.map((p, i) => (i === 0 ? String(value) : p)) ?? null),
    ...Object.keys(c.limits).map((k) => () => ((copy.limits as Record<string, number>)[k] = Number(value) || 7)),
  ];
  leaves[which % leaves.length]!();
  return copy;
}

describe('SPEC §9 the server sends a context again exactly when it changed', () => {
  it('sameCallContext answers as deep equality, over 4,000 generated pairs (same, one field changed, unrelated)', () => {
    fc.assert(
      fc.property(
        contextArb,
        contextArb,
        fc.nat(),
        fc.oneof(text, fc.constantFrom(0, 1, 7, 1024)),
        fc.constantFrom('tweak', 'tweak', 'other', 'same'),
        (a, other, which, value, how) => {
          const b = how === 'same' ? a : how === 'other' ? other : tweak(a, which, value);
          expect(sameCallContext(a, b)).toBe(isDeepStrictEqual(a, b));
          expect(sameCallContext(b, a)).toBe(isDeepStrictEqual(a, b));
        },
      ),
      { numRuns: 4000 },
    );
  });
});
