import { describe, expect, it } from 'vitest';
import { canonicalJson, checkJsonShape, findForbiddenKey } from './jsonLimits.js';
import { DEFAULT_LIMITS, HUB_LIMITS, lowerLimits } from './limits.js';
import { adapterDenial } from './policy.js';

describe('SPEC §6 limits', () => {
  it('SPEC §6 --limit only lowers a limit, the hub’s sessionsPerHost and catalogBytes too', () => {
    expect(lowerLimits({ batchCalls: 5 }).batchCalls).toBe(5);
    expect(lowerLimits({ sessionsPerHost: 2, catalogBytes: 4096 })).toMatchObject({
      sessionsPerHost: 2,
      catalogBytes: 4096,
    });
    expect(lowerLimits({})).not.toHaveProperty('sessionsPerHost');
    expect(() => lowerLimits({ sessionsPerHost: 17 })).toThrow(/only be lowered \(maximum 16\)/);
    expect(() => lowerLimits({ catalogBytes: HUB_LIMITS.catalogBytes + 1 })).toThrow(/only be lowered/);
    expect(() => lowerLimits({ toString: 1 })).toThrow(/Unknown limit/);
    expect(() => lowerLimits({ batchCalls: 26 })).toThrow(/only be lowered/);
    expect(() => lowerLimits({ nope: 1 })).toThrow(/Unknown limit/);
    expect(() => lowerLimits({ callArgs: 0 })).toThrow(/positive integer/);
  });

  it('SPEC §6 JSON depth is checked without recursion, even far past the limit', () => {
    let deep: unknown = 1;
    for (let i = 0; i < 100_000; i++) deep = [deep];
    expect(checkJsonShape(deep)).toEqual({ limit: 'jsonDepth', max: DEFAULT_LIMITS.jsonDepth });
    let ok: unknown = 1;
    for (let i = 0; i < DEFAULT_LIMITS.jsonDepth; i++) ok = { a: ok };
    expect(checkJsonShape(ok)).toBeNull();
  });

  it('SPEC §6 depth counts arrays and objects alike, each level once, less the reserved levels', () => {
    const nest = (levels: number): unknown => {
      let value: unknown = 'leaf';
      for (let i = 0; i < levels; i++) value = i % 2 ? { k: value } : [null, value];
      return value;
    };
    const limits = { jsonDepth: 8, stringLength: 10 };
    expect(checkJsonShape(nest(8), limits)).toBeNull();
    expect(checkJsonShape(nest(9), limits)).toEqual({ limit: 'jsonDepth', max: 8 });
    expect(checkJsonShape(nest(6), limits, 2)).toBeNull();
    expect(checkJsonShape(nest(7), limits, 2)).toEqual({ limit: 'jsonDepth', max: 8 });
    expect(checkJsonShape([[{ k: 'x'.repeat(11) }]], limits)).toEqual({ limit: 'stringLength', max: 10 });
  });

  it('SPEC §6 strings (and keys) over 128 KB break stringLength', () => {
    const long = 'x'.repeat(DEFAULT_LIMITS.stringLength + 1);
    expect(checkJsonShape({ a: [long] })).toEqual({ limit: 'stringLength', max: DEFAULT_LIMITS.stringLength });
    expect(checkJsonShape({ [long]: 1 })).toEqual({ limit: 'stringLength', max: DEFAULT_LIMITS.stringLength });
    expect(checkJsonShape({ a: 'x'.repeat(DEFAULT_LIMITS.stringLength) })).toBeNull();
  });
});

describe('SPEC §5 byte-equivalence and the adapter maximum', () => {
  it('SPEC §5 canonical JSON sorts keys at every level', () => {
    expect(canonicalJson({ b: 1, a: { d: [{ z: 1, y: 2 }], c: null } })).toBe(
      canonicalJson({ a: { c: null, d: [{ y: 2, z: 1 }] }, b: 1 }),
    );
    expect(canonicalJson({ a: [1, 2] })).not.toBe(canonicalJson({ a: [2, 1] }));
  });

  it('SPEC §5 trade-class controls need --enable-trading and a matching --allow-controls pattern', () => {
    const off = { maxAccess: 'write' as const, allowControls: null };
    expect(adapterDenial(off, 'orders.placeOrder', 'trade')).toMatch(/--enable-trading/);
    expect(adapterDenial(off, 'chart.setSymbol', 'write')).toBeNull();
    const cancelOnly = { maxAccess: 'trade' as const, allowControls: ['orders.cancelOrder'] };
    expect(adapterDenial(cancelOnly, 'orders.cancelOrder', 'trade')).toBeNull();
    expect(adapterDenial(cancelOnly, 'orders.placeOrder', 'trade')).toMatch(/--allow-controls/);
    const ordersAll = { maxAccess: 'trade' as const, allowControls: ['orders.*'] };
    expect(adapterDenial(ordersAll, 'orders.placeOrder', 'trade')).toBeNull();
    expect(adapterDenial(ordersAll, 'risk.triggerEmergency', 'trade')).not.toBeNull();
  });
});

describe('SPEC §4 unknown fields: a __proto__ key is found where it sits', () => {
  const withProto = (fields: Record<string, unknown>) => {
    const node = JSON.parse('{"__proto__": {"polluted": true}}') as Record<string, unknown>;
    return Object.assign(node, fields);
  };

  it('names the path of the object that carries it, through objects and arrays, or null', () => {
    expect(findForbiddenKey({ a: 1, b: [{ c: 'x' }] })).toBeNull();
    expect(findForbiddenKey('text')).toBeNull();
    expect(findForbiddenKey(withProto({}))).toEqual([]);
    expect(findForbiddenKey({ args: [1, { deep: withProto({ x: 1 }) }] })).toEqual(['args', 1, 'deep']);
  });

  it('reports the same first hit as a depth-first walk that takes the last child first', () => {
    const value = { first: withProto({}), second: { inner: withProto({}) } };
    expect(findForbiddenKey(value)).toEqual(['second', 'inner']);
  });
});
