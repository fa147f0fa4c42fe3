/**
 * Test support: fast-check arbitraries of values valid against a tool's
 * published JSON Schema (the subset zod's `toJSONSchema` emits for our tools:
 * objects, arrays, strings with bounds and patterns, integers with bounds,
 * booleans, enums, consts, `oneOf`/`anyOf`, nulls and type lists, records and
 * free values; exclusive bounds as zod 4 writes them, numbers). Every free
 * string carries a marker (`QZX<n>XZQ`), so a test can prove no submitted
 * value comes back in a diagnostic.
 */
import fc from 'fast-check';
import { FORBIDDEN_KEYS } from '../protocol/index.js';

/** The JSON Schema subset the tools publish. */
export interface JsonSchema {
  type?: string | string[];
  properties?: Record<string, JsonSchema>;
  required?: string[];
  additionalProperties?: boolean | JsonSchema;
  items?: JsonSchema;
  minItems?: number;
  maxItems?: number;
  minLength?: number;
  maxLength?: number;
  pattern?: string;
  minimum?: number;
  maximum?: number;
  exclusiveMinimum?: number;
  exclusiveMaximum?: number;
  enum?: unknown[];
  const?: unknown;
  oneOf?: JsonSchema[];
  anyOf?: JsonSchema[];
}

/** What a leaked marker looks like in any text. */
export const MARKER_PATTERN = /QZX\d+XZQ/;

/** A string that names itself as submitted input: `QZX<n>XZQ` plus some unicode. */
export const markedString: fc.Arbitrary<string> = fc
  .tuple(fc.nat(), fc.string({ unit: 'grapheme', maxLength: 6 }))
  .map(([n, tail]) => `QZX${n}XZQ${tail}`);

/** A marked key name (an unknown field). */
export const markedKey: fc.Arbitrary<string> = fc.nat().map((n) => `kQZX${n}XZQ`);

/** Free JSON (a control's positional argument, binding options): small, marked strings. */
export const freeJson: fc.Arbitrary<unknown> = fc.letrec<{ value: unknown }>((tie) => ({
  value: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    fc.constant(null),
    fc.boolean(),
    fc.integer(),
    fc.double({ noNaN: true, noDefaultInfinity: true }),
    markedString,
    fc.array(tie('value'), { maxLength: 3 }),
    fc.dictionary(markedKey, tie('value'), { maxKeys: 3 }),
  ),
})).value;

/** Options of {@link arbitraryFor}. */
export interface ArbitraryOptions {
  /** Most items of any array (default 3); count limits are probed separately. */
  maxItems?: number;
  /** Replaces the arbitrary of the field `name` (e.g. a real session id). */
  fields?: Record<string, fc.Arbitrary<unknown>>;
}

function clip(text: string, min: number, max: number): string {
  const chars = [...text].slice(0, max);
  while (chars.length < min) chars.push('x');
  return chars.join('');
}

function stringArbitrary(schema: JsonSchema): fc.Arbitrary<string> {
  const min = schema.minLength ?? 0;
  const max = schema.maxLength ?? 256;
  if (schema.pattern) {
    return fc.stringMatching(new RegExp(schema.pattern)).filter((s) => s.length >= min && s.length <= max);
  }
  return markedString.map((s) => clip(s, min, max));
}

function objectArbitrary(schema: JsonSchema, options: ArbitraryOptions): fc.Arbitrary<unknown> {
  const properties = schema.properties ?? {};
  if (Object.keys(properties).length === 0 && typeof schema.additionalProperties === 'object') {
    const key = fc.string({ minLength: 1, maxLength: 12 }).filter((k) => !FORBIDDEN_KEYS.has(k));
    return fc.dictionary(key, arbitraryFor(schema.additionalProperties, options), { maxKeys: 3 });
  }
  const model: Record<string, fc.Arbitrary<unknown>> = {};
  for (const [name, property] of Object.entries(properties)) {
    model[name] = options.fields?.[name] ?? arbitraryFor(property, options);
  }
  return fc.record(model, { requiredKeys: (schema.required ?? []).filter((k) => k in model) });
}

/** The least value `schema` admits, an exclusive bound moved up by `step` (1 for integers; 0 for numbers, excluded by the caller). */
function lowerBound(schema: JsonSchema, step: number): number | undefined {
  const exclusive = schema.exclusiveMinimum === undefined ? undefined : schema.exclusiveMinimum + step;
  if (schema.minimum === undefined) return exclusive;
  return exclusive === undefined ? schema.minimum : Math.max(schema.minimum, exclusive);
}

/** The greatest value `schema` admits, as {@link lowerBound}. */
function upperBound(schema: JsonSchema, step: number): number | undefined {
  const exclusive = schema.exclusiveMaximum === undefined ? undefined : schema.exclusiveMaximum - step;
  if (schema.maximum === undefined) return exclusive;
  return exclusive === undefined ? schema.maximum : Math.min(schema.maximum, exclusive);
}

/** Values valid against `schema`. */
export function arbitraryFor(schema: JsonSchema, options: ArbitraryOptions = {}): fc.Arbitrary<unknown> {
  if ('const' in schema) return fc.constant(schema.const);
  if (schema.enum) return fc.constantFrom(...schema.enum);
  const union = schema.oneOf ?? schema.anyOf;
  if (union) return fc.oneof(...union.map((option) => arbitraryFor(option, options)));
  if (Array.isArray(schema.type)) {
    return fc.oneof(...schema.type.map((type) => arbitraryFor({ ...schema, type }, options)));
  }
  switch (schema.type) {
    case 'null':
      return fc.constant(null);
    case 'string':
      return stringArbitrary(schema);
    case 'integer':
      return fc.integer({
        min: Math.max(lowerBound(schema, 1) ?? Number.MIN_SAFE_INTEGER, Number.MIN_SAFE_INTEGER),
        max: Math.min(upperBound(schema, 1) ?? Number.MAX_SAFE_INTEGER, Number.MAX_SAFE_INTEGER),
      });
    case 'number':
      return fc.double({
        min: lowerBound(schema, 0) ?? -1e9,
        max: upperBound(schema, 0) ?? 1e9,
        minExcluded: schema.exclusiveMinimum !== undefined && !(schema.minimum! > schema.exclusiveMinimum),
        maxExcluded: schema.exclusiveMaximum !== undefined && !(schema.maximum! < schema.exclusiveMaximum),
        noNaN: true,
      });
    case 'boolean':
      return fc.boolean();
    case 'array':
      return fc.array(schema.items ? arbitraryFor(schema.items, options) : freeJson, {
        minLength: schema.minItems ?? 0,
        maxLength: Math.max(schema.minItems ?? 0, Math.min(schema.maxItems ?? Infinity, options.maxItems ?? 3)),
      });
    case 'object':
      return objectArbitrary(schema, options);
    default:
      return freeJson;
  }
}
