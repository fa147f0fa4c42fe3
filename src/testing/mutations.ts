/**
 * Test support: hostile mutations of valid tool arguments for fuzzing (SPEC
 * §4, §6). A plan is data (kind, where, what), so fast-check can shrink a
 * failing case to its smallest form. Applying a plan never changes its input.
 */
import fc from 'fast-check';
import { DEFAULT_LIMITS } from '../protocol/index.js';
import { markedKey, markedString } from './schemaArbitrary.js';

/** Keys that probe prototype handling; each is set as an own property, as JSON.parse would. */
export const PROTOTYPE_KEYS = ['__proto__', 'constructor', 'prototype', 'toString', 'hasOwnProperty', 'valueOf'];

/** Numbers at the edges: zero, signs, limits of the tools (16, 25, 32, 100, 500, 1000) and of doubles. */
export const BOUNDARY_NUMBERS = [
  0,
  -0,
  -1,
  1,
  0.5,
  15,
  16,
  17,
  24,
  25,
  26,
  31,
  32,
  33,
  99,
  100,
  101,
  499,
  500,
  501,
  999,
  1000,
  1001,
  2 ** 31,
  2 ** 53 - 1,
  2 ** 53,
  1e21,
  1e308,
  -1e308,
  5e-324,
  -73519.4417,
];

/** Strings that trouble text handling: controls, bidi overrides, BOM, lone surrogates, astral and combining marks. */
export const HOSTILE_TEXT = [
  '\u0000',
  '\u202e',
  '\ufeff',
  '\ud800',
  '\udfff',
  '\u{1f600}',
  'e\u0301',
  '\r\n',
  '"\\',
  '</script>',
];

/** One mutation of a plan. */
export type Mutation =
  | { kind: 'wrongType'; at: number; value: unknown }
  | { kind: 'unknownKey'; at: number; key: string; value: unknown }
  | { kind: 'dropKey'; at: number; which: number }
  | { kind: 'boundary'; at: number; value: number }
  | { kind: 'unicode'; at: number; value: string }
  | { kind: 'hugeString'; at: number; length: number }
  | { kind: 'deep'; at: number; depth: number; shape: 'array' | 'object' }
  | { kind: 'flood'; at: number; length: number };

const weirdValue: fc.Arbitrary<unknown> = fc.oneof(
  markedString,
  fc.constantFrom(...BOUNDARY_NUMBERS),
  fc.boolean(),
  fc.constant(null),
  fc.constant([]),
  markedString.map((s) => [s]),
  fc.tuple(markedKey, markedString).map(([k, v]) => ({ [k]: v })),
  fc.tuple(fc.constantFrom(...HOSTILE_TEXT), markedString).map(([h, s]) => `${h}${s}${h}`),
);

const at = fc.nat();

/** One mutation; huge and deep values are rarer than the rest (they cost more per call). */
export const mutationArbitrary: fc.Arbitrary<Mutation> = fc.oneof(
  { weight: 5, arbitrary: fc.record({ kind: fc.constant('wrongType' as const), at, value: weirdValue }) },
  {
    weight: 5,
    arbitrary: fc.record({
      kind: fc.constant('unknownKey' as const),
      at,
      key: fc.oneof(markedKey, fc.constantFrom(...PROTOTYPE_KEYS)),
      value: weirdValue,
    }),
  },
  { weight: 3, arbitrary: fc.record({ kind: fc.constant('dropKey' as const), at, which: fc.nat() }) },
  {
    weight: 3,
    arbitrary: fc.record({ kind: fc.constant('boundary' as const), at, value: fc.constantFrom(...BOUNDARY_NUMBERS) }),
  },
  {
    weight: 3,
    arbitrary: fc.record({
      kind: fc.constant('unicode' as const),
      at,
      value: fc
        .tuple(fc.constantFrom(...HOSTILE_TEXT), fc.string({ unit: 'binary', maxLength: 12 }), markedString)
        .map(([h, s, m]) => `${h}${s}${m}`),
    }),
  },
  {
    weight: 1,
    arbitrary: fc.record({
      kind: fc.constant('hugeString' as const),
      at,
      length: fc.constantFrom(DEFAULT_LIMITS.stringLength - 16, DEFAULT_LIMITS.stringLength + 1, 300 * 1024),
    }),
  },
  {
    weight: 1,
    arbitrary: fc.record({
      kind: fc.constant('deep' as const),
      at,
      depth: fc.oneof(fc.integer({ min: 18, max: 40 }), fc.constantFrom(1_000, 50_000)),
      shape: fc.constantFrom('array' as const, 'object' as const),
    }),
  },
  {
    weight: 2,
    arbitrary: fc.record({
      kind: fc.constant('flood' as const),
      at,
      length: fc.constantFrom(16, 17, 25, 26, 32, 33, 60),
    }),
  },
);

type Path = Array<string | number>;

/** Sets an own property, even `__proto__` (plain assignment would set the prototype instead). */
export function setOwn(target: Record<string, unknown>, key: string, value: unknown): void {
  Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
}

/** A deep copy of a JSON value that keeps `__proto__` keys as own properties. */
export function cloneJson<T>(value: T): T {
  if (Array.isArray(value)) return value.map(cloneJson) as T;
  if (value === null || typeof value !== 'object') return value;
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(value)) setOwn(out, key, cloneJson((value as Record<string, unknown>)[key]));
  return out as T;
}

/** Deeper nodes are never picked (a deep mutation already made them; walking them would overflow). */
const MAX_PICK_DEPTH = 40;

function nodePaths(value: unknown, path: Path = [], into: Path[] = []): Path[] {
  into.push(path);
  if (path.length >= MAX_PICK_DEPTH) return into;
  if (Array.isArray(value)) value.forEach((item, i) => nodePaths(item, [...path, i], into));
  else if (value !== null && typeof value === 'object') {
    for (const key of Object.keys(value)) nodePaths((value as Record<string, unknown>)[key], [...path, key], into);
  }
  return into;
}

function nested(depth: number, shape: 'array' | 'object'): unknown {
  let value: unknown = 'QZX0XZQ';
  for (let i = 0; i < depth; i += 1) value = shape === 'array' ? [value] : { d: value };
  return value;
}

function replaced(root: unknown, path: Path, make: (old: unknown) => unknown): unknown {
  if (path.length === 0) return make(root);
  const parent = path.slice(0, -1).reduce<unknown>((node, key) => (node as Record<string, unknown>)[key], root);
  const key = path[path.length - 1]!;
  const container = parent as Record<string | number, unknown>;
  if (Array.isArray(container)) container[key as number] = make(container[key as number]);
  else setOwn(container as Record<string, unknown>, String(key), make(container[key]));
  return root;
}

function nodeAt(root: unknown, path: Path): unknown {
  return path.reduce<unknown>((n, k) => (n as Record<string, unknown>)[k], root);
}

function objectPaths(root: unknown): Path[] {
  return nodePaths(root).filter((p) => {
    const node = nodeAt(root, p);
    return node !== null && typeof node === 'object' && !Array.isArray(node);
  });
}

function arrayPaths(root: unknown): Path[] {
  return nodePaths(root).filter((p) => Array.isArray(nodeAt(root, p)));
}

function apply(root: unknown, m: Mutation): unknown {
  const all = nodePaths(root);
  const path = all[m.at % all.length]!;
  switch (m.kind) {
    case 'wrongType':
      return replaced(root, path, () => m.value);
    case 'boundary':
      return replaced(root, path, () => m.value);
    case 'unicode':
      return replaced(root, path, () => m.value);
    case 'hugeString':
      return replaced(root, path, () => `QZX1XZQ${'x'.repeat(m.length)}`);
    case 'deep':
      return replaced(root, path, () => nested(m.depth, m.shape));
    case 'flood': {
      const arrays = arrayPaths(root);
      if (arrays.length === 0) return root;
      return replaced(root, arrays[m.at % arrays.length]!, (old) =>
        Array.isArray(old) && old.length > 0 ? Array.from({ length: m.length }, (_, i) => old[i % old.length]) : old,
      );
    }
    case 'unknownKey':
    case 'dropKey': {
      const objects = objectPaths(root);
      if (objects.length === 0) return root;
      const record = nodeAt(root, objects[m.at % objects.length]!) as Record<string, unknown>;
      if (m.kind === 'unknownKey') setOwn(record, m.key, m.value);
      else {
        const keys = Object.keys(record);
        if (keys.length > 0) delete record[keys[m.which % keys.length]!];
      }
      return root;
    }
  }
}

/** Applies a plan of mutations, in order, to a copy of `value`. */
export function mutate(value: unknown, plan: readonly Mutation[]): unknown {
  return plan.reduce<unknown>((root, m) => apply(root, m), cloneJson(value));
}
