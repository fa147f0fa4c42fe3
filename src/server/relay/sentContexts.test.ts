import fc from 'fast-check';
import { isDeepStrictEqual } from 'node:util';
import { describe, expect, it } from 'vitest';
import { DEFAULT_LIMITS, relayLimitsOf, type CallContext } from '../../protocol/index.js';
import { sameCallContext } from './sentContexts.js';

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
