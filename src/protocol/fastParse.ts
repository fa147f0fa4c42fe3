/**
 * A fast path in front of a zod schema (issue 15 item 1), for the few schemas
 * read on every call: the relay's response frame, the call receipt, the tool
 * inputs. zod/mini parses by walking a generic tree of schema nodes, allocating
 * a payload per node; measured, that was the largest block of the server's own
 * per-call work.
 *
 * {@link fastParser} builds, once and without `eval`, a plain function from the
 * schema's own definition (nothing is written twice). It answers only when the
 * input is certainly valid, with the value zod's parse returns (new objects in
 * the schema's key order, defaults filled in); for anything it cannot vouch
 * for it answers `INVALID`, and {@link withFastPath} hands that input to the
 * schema itself, so every error, and every doubtful case, is zod's. A node kind
 * or check it does not know makes its part of the tree always decline.
 */
import * as z from 'zod/mini';

type Schema = z.core.$ZodType;

/** What the fast path answers when zod must decide. */
export const DECLINE: typeof z.INVALID = z.INVALID;

/** The parsed value, or {@link DECLINE}. */
export type FastParser = (input: unknown) => unknown;

interface CheckDef {
  check?: string;
  minimum?: number;
  maximum?: number;
  value?: unknown;
  inclusive?: boolean;
  format?: string;
  pattern?: RegExp;
}

interface NodeDef extends CheckDef {
  type: string;
  checks?: Array<{ _zod: { def: CheckDef } }>;
  shape?: Record<string, Schema>;
  catchall?: Schema;
  element?: Schema;
  innerType?: Schema;
  options?: Schema[];
  discriminator?: string;
  unionFallback?: boolean;
  keyType?: Schema;
  valueType?: Schema;
  mode?: string;
  coerce?: boolean;
  defaultValue?: unknown;
}

interface Internals {
  def: NodeDef;
  traits: Set<string>;
  values?: Set<unknown>;
  optin?: string;
  propValues?: Record<string, Set<unknown>>;
}

class Unsupported extends Error {}

const internals = (schema: Schema) => (schema as unknown as { _zod: Internals })._zod;

const decline: FastParser = () => DECLINE;

/** Checks that do nothing to a value. */
const NO_OP_CHECKS = new Set(['describe', 'meta']);

/** The node's checks: the node itself when it is one (`z.int()`), then those added with `.check()`. */
function checksOf(schema: Schema): CheckDef[] {
  const zod = internals(schema);
  const added = (zod.def.checks ?? []).map((check) => check._zod.def);
  const own = zod.traits.has('$ZodCheck') ? [zod.def] : [];
  return [...own, ...added].filter((check) => !NO_OP_CHECKS.has(check.check ?? ''));
}

function noChecks(schema: Schema): void {
  if (checksOf(schema).length > 0) throw new Unsupported();
}

/**
 * The fast parser of `schema`. Every part it does not model declines, so the
 * parser as a whole never accepts what zod rejects; see the property tests.
 */
export function fastParser(schema: Schema): FastParser {
  return build(schema, new Set());
}

/**
 * `schema` with {@link fastParser} installed as zod's own fast path
 * (`z.withParser`): `safeParse` and every parse through it try the fast path
 * first and fall back to the schema on {@link DECLINE}.
 */
export function withFastPath<S extends Schema>(schema: S): S {
  return z.withParser(schema, fastParser(schema) as (input: unknown) => z.output<S>);
}

/** A safe parse: zod's result shape. */
export type SafeParse<T> = (input: unknown) => { success: true; data: T } | { success: false };

/**
 * `schema`'s safe parse with {@link fastParser} in front: the answers of
 * {@link withFastPath}'s `safeParse`, for code that calls it directly. The
 * page reads relay frames with it (issue 15 item 1): zod's `withParser`
 * wrapper would cost its eager bundle about 1 KB gzipped.
 */
export function fastSafeParse<S extends Schema>(schema: S): SafeParse<z.output<S>> {
  const fast = fastParser(schema);
  return (input) => {
    const data = fast(input);
    return data === DECLINE ? z.safeParse(schema, input) : { success: true, data: data as z.output<S> };
  };
}

function build(schema: Schema, building: Set<Schema>): FastParser {
  // A schema that contains itself is left to zod, which can follow the cycle.
  if (building.has(schema)) return decline;
  building.add(schema);
  try {
    return buildNode(schema, building);
  } catch (error) {
    if (error instanceof Unsupported) return decline;
    throw error;
  } finally {
    building.delete(schema);
  }
}

function buildNode(schema: Schema, building: Set<Schema>): FastParser {
  const zod = internals(schema);
  const def = zod.def;
  if (def.coerce) throw new Unsupported();
  switch (def.type) {
    case 'unknown':
    case 'any':
      noChecks(schema);
      return (input) => (input === undefined ? DECLINE : input);
    case 'string':
      return stringParser(schema);
    case 'number':
      return numberParser(schema);
    case 'boolean':
      noChecks(schema);
      return (input) => (typeof input === 'boolean' ? input : DECLINE);
    case 'literal':
    case 'enum':
      return valuesParser(schema);
    case 'nullable': {
      noChecks(schema);
      const inner = build(def.innerType!, building);
      return (input) => (input === null ? null : inner(input));
    }
    case 'optional':
    case 'default': {
      // Outside an object (where absence is handled), only a present value is answered.
      noChecks(schema);
      const inner = build(def.innerType!, building);
      return (input) => {
        const parsed = input === undefined ? DECLINE : inner(input);
        return parsed === undefined ? DECLINE : parsed;
      };
    }
    case 'array':
      return arrayParser(schema, building);
    case 'object':
      return objectParser(schema, building);
    case 'record':
      return recordParser(schema, building);
    case 'union':
      return def.discriminator === undefined ? unionParser(schema, building) : taggedParser(schema, building);
    default:
      throw new Unsupported();
  }
}

function stringParser(schema: Schema): FastParser {
  if (internals(schema).traits.has('$ZodCheck')) throw new Unsupported(); // a string format (email, url…)
  let min = 0;
  let max = Infinity;
  const patterns: RegExp[] = [];
  for (const check of checksOf(schema)) {
    if (check.check === 'min_length') min = Math.max(min, check.minimum!);
    else if (check.check === 'max_length') max = Math.min(max, check.maximum!);
    else if (check.check === 'string_format' && check.format === 'regex' && check.pattern) patterns.push(check.pattern);
    else throw new Unsupported();
  }
  // zod counts code points: one or two UTF-16 units each. Within these unit counts the answer is certain.
  const fewestUnits = 2 * min - 1;
  return (input) => {
    if (typeof input !== 'string') return DECLINE;
    const units = input.length;
    if (units > max || units < fewestUnits) return DECLINE;
    for (const pattern of patterns) {
      pattern.lastIndex = 0;
      if (!pattern.test(input)) return DECLINE;
    }
    return input;
  };
}

function numberParser(schema: Schema): FastParser {
  let integer = false;
  let low = -Infinity;
  let lowInclusive = true;
  let high = Infinity;
  let highInclusive = true;
  for (const check of checksOf(schema)) {
    const { value, inclusive = false } = check;
    if (check.check === 'number_format' && check.format === 'safeint') integer = true;
    else if (check.check === 'greater_than' && typeof value === 'number') {
      // The strictest bound of each side is the one that decides.
      if (value > low || (value === low && !inclusive)) [low, lowInclusive] = [value, inclusive];
    } else if (check.check === 'less_than' && typeof value === 'number') {
      if (value < high || (value === high && !inclusive)) [high, highInclusive] = [value, inclusive];
    } else throw new Unsupported();
  }
  return (input) => {
    if (typeof input !== 'number' || !Number.isFinite(input)) return DECLINE;
    if (integer && !Number.isSafeInteger(input)) return DECLINE;
    if (lowInclusive ? input < low : input <= low) return DECLINE;
    if (highInclusive ? input > high : input >= high) return DECLINE;
    return input;
  };
}

function valuesParser(schema: Schema): FastParser {
  noChecks(schema);
  const values = internals(schema).values;
  if (!values) throw new Unsupported();
  return (input) => (input !== undefined && values.has(input) ? input : DECLINE);
}

function arrayParser(schema: Schema, building: Set<Schema>): FastParser {
  let min = 0;
  let max = Infinity;
  for (const check of checksOf(schema)) {
    if (check.check === 'min_length') min = Math.max(min, check.minimum!);
    else if (check.check === 'max_length') max = Math.min(max, check.maximum!);
    else throw new Unsupported();
  }
  const element = build(internals(schema).def.element!, building);
  return (input) => {
    if (!Array.isArray(input) || input.length < min || input.length > max) return DECLINE;
    const out: unknown[] = new Array(input.length);
    for (let i = 0; i < input.length; i++) {
      const item = element(input[i]);
      if (item === DECLINE) return DECLINE;
      out[i] = item;
    }
    return out;
  };
}

/** How a field that is absent from the input is answered. */
type Absent = 'required' | 'omitted' | 'defaulted';

interface Field {
  key: string;
  parse: FastParser;
  absent: Absent;
  schema: Schema;
}

function absenceOf(schema: Schema): Absent {
  const zod = internals(schema);
  if (zod.optin === undefined) return 'required';
  if (zod.def.type === 'optional' && zod.optin === 'optional') return 'omitted';
  if (zod.def.type === 'default') return 'defaulted';
  throw new Unsupported();
}

function isObject(input: unknown): input is Record<string, unknown> {
  return typeof input === 'object' && input !== null && !Array.isArray(input);
}

function objectParser(schema: Schema, building: Set<Schema>): FastParser {
  noChecks(schema);
  const def = internals(schema).def;
  const catchall = def.catchall ? internals(def.catchall).def.type : 'strip';
  if (catchall !== 'never' && catchall !== 'strip') throw new Unsupported();
  const shape = def.shape!;
  if (Object.getOwnPropertySymbols(shape).length > 0) throw new Unsupported();
  const fields: Field[] = Object.keys(shape).map((key) => {
    // A key Object.prototype also has would be "present" on every object: zod tests presence with `in`.
    if (key in Object.prototype) throw new Unsupported();
    let absent: Absent;
    try {
      absent = absenceOf(shape[key]!);
    } catch {
      absent = 'required';
    }
    return { key, parse: build(shape[key]!, building), absent, schema: shape[key]! };
  });
  const declared = new Set(Object.keys(shape));
  const strict = catchall === 'never';
  return (input) => {
    if (!isObject(input)) return DECLINE;
    // zod's strict check walks `for…in`, inherited enumerable keys included.
    if (strict) for (const key in input) if (!declared.has(key)) return DECLINE;
    const out: Record<string, unknown> = {};
    for (const field of fields) {
      const value = input[field.key];
      if (value === undefined) {
        if (field.key in input || field.absent === 'required') return DECLINE;
        if (field.absent === 'defaulted') out[field.key] = internals(field.schema).def.defaultValue;
        continue;
      }
      const parsed = field.parse(value);
      if (parsed === DECLINE) return DECLINE;
      out[field.key] = parsed;
    }
    return out;
  };
}

function recordParser(schema: Schema, building: Set<Schema>): FastParser {
  noChecks(schema);
  const def = internals(schema).def;
  const key = internals(def.keyType!);
  if (def.mode !== undefined || key.def.type !== 'string' || key.values || checksOf(def.keyType!).length > 0) {
    throw new Unsupported();
  }
  const value = build(def.valueType!, building);
  return (input) => {
    if (!z.util.isPlainObject(input) || Object.getOwnPropertySymbols(input).length > 0) return DECLINE;
    const out: Record<string, unknown> = {};
    for (const k of Object.keys(input)) {
      // zod drops a `__proto__` key from a record without a word: that case is zod's.
      if (k === '__proto__') return DECLINE;
      const parsed = value((input as Record<string, unknown>)[k]);
      if (parsed === DECLINE) return DECLINE;
      out[k] = parsed;
    }
    return out;
  };
}

/** A discriminated union: the option its tag names, as zod picks it. */
function taggedParser(schema: Schema, building: Set<Schema>): FastParser {
  noChecks(schema);
  const def = internals(schema).def;
  if (def.unionFallback) throw new Unsupported();
  const tag = def.discriminator!;
  const byTag = new Map<unknown, FastParser>();
  for (const option of def.options!) {
    const values = internals(option).propValues?.[tag];
    if (!values) throw new Unsupported();
    const parse = build(option, building);
    for (const value of values) {
      if (value === undefined || byTag.has(value)) throw new Unsupported();
      byTag.set(value, parse);
    }
  }
  return (input) => {
    if (!isObject(input)) return DECLINE;
    const parse = byTag.get(input[tag]);
    return parse ? parse(input) : DECLINE;
  };
}

const PRIMITIVES = new Set(['string', 'number', 'boolean']);

/** A union of primitives of different types: only one option can take a value, so the first success is it. */
function unionParser(schema: Schema, building: Set<Schema>): FastParser {
  noChecks(schema);
  const byType = new Map<string, FastParser>();
  for (const option of internals(schema).def.options!) {
    const type = internals(option).def.type;
    if (!PRIMITIVES.has(type) || byType.has(type)) throw new Unsupported();
    byType.set(type, build(option, building));
  }
  return (input) => {
    const parse = byType.get(typeof input);
    return parse ? parse(input) : DECLINE;
  };
}
