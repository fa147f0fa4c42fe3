/**
 * Turns schema failures into `invalid_input` diagnostics that follow SPEC §4:
 * canonical paths (≤16 components), our own messages (≤256 characters), no
 * submitted values, unknown key names, exception text or union labels;
 * deduplicated; at most 20 entries, the last an omission notice when more remain.
 */
import * as z from 'zod/mini';

/** Any zod 4 schema, classic or mini. */
type Schema = z.core.$ZodType;
import type { ValidationIssue } from './errors.js';

/** Most diagnostics one error carries, the omission notice included. */
export const MAX_DIAGNOSTICS = 20;
/** Most components in a diagnostic path. */
export const MAX_PATH_COMPONENTS = 16;
/** Most characters in a diagnostic message. */
export const MAX_MESSAGE_LENGTH = 256;

type Path = ValidationIssue['path'];

/** Formats a path prefix, clipped to the component limit. */
function clipPath(path: readonly PropertyKey[]): Path {
  const clean: Path = [];
  for (const part of path) {
    if (typeof part === 'number') clean.push(part);
    else if (typeof part === 'string') clean.push(part);
    // symbols never come from JSON; they are left out.
  }
  return clean.slice(0, MAX_PATH_COMPONENTS);
}

function clip(message: string): string {
  return message.length <= MAX_MESSAGE_LENGTH ? message : `${message.slice(0, MAX_MESSAGE_LENGTH - 1)}…`;
}

const TYPE_WORDS: Record<string, string> = {
  string: 'a string',
  number: 'a number',
  int: 'an integer',
  boolean: 'true or false',
  object: 'an object',
  array: 'an array',
  bigint: 'an integer',
  null: 'null',
  undefined: 'nothing',
  literal: 'a fixed value',
};

/** Schema-side choices are ours to name; they are short constants, never input. */
function describeChoices(values: readonly unknown[]): string {
  const shown = values
    .filter((v): v is string | number | boolean => ['string', 'number', 'boolean'].includes(typeof v))
    .slice(0, 12)
    .map((v) => JSON.stringify(v));
  if (shown.length === 0) return 'Must be one of the supported values.';
  return clip(`Must be one of: ${shown.join(', ')}${values.length > shown.length ? ', …' : ''}.`);
}

function sizeWord(origin: unknown): string {
  switch (origin) {
    case 'string':
      return 'character(s)';
    case 'array':
    case 'set':
      return 'item(s)';
    case 'object':
      return 'field(s)';
    default:
      return '';
  }
}

/**
 * True when an `invalid_type` issue is about a missing value. zod 4 only keeps the
 * input when parsing with `reportInput` (see {@link parseWithDiagnostics}); without
 * it, its own generated message is the one place that says "undefined".
 */
function isMissing(issue: z.core.$ZodIssueInvalidType): boolean {
  if ('input' in issue) return issue.input === undefined;
  return issue.message.endsWith('received undefined');
}

/** One zod issue to one diagnostic, without any submitted value. */
function toDiagnostic(issue: z.core.$ZodIssue): ValidationIssue {
  const path = clipPath(issue.path);
  switch (issue.code) {
    case 'invalid_type': {
      const expected = TYPE_WORDS[issue.expected] ?? `a ${issue.expected}`;
      if (isMissing(issue)) return { path, code: 'required', message: clip(`Required: expected ${expected}.`) };
      return { path, code: 'invalid_type', message: clip(`Expected ${expected}.`) };
    }
    case 'too_small': {
      const unit = sizeWord(issue.origin);
      const min = String(issue.minimum);
      const bound = issue.inclusive === false ? 'greater than' : unit ? 'at least' : 'at least';
      if (issue.origin === 'string' && Number(issue.minimum) === 1) {
        return { path, code: 'too_small', message: 'Must not be empty.' };
      }
      return { path, code: 'too_small', message: clip(`Must be ${bound} ${min}${unit ? ` ${unit}` : ''}.`) };
    }
    case 'too_big': {
      const unit = sizeWord(issue.origin);
      const bound = issue.inclusive === false ? 'less than' : 'at most';
      return {
        path,
        code: 'too_big',
        message: clip(`Must be ${bound} ${String(issue.maximum)}${unit ? ` ${unit}` : ''}.`),
      };
    }
    case 'invalid_format': {
      const format = issue.format === 'regex' ? 'the required pattern' : `the ${issue.format} format`;
      return { path, code: 'invalid_format', message: clip(`Must match ${format}.`) };
    }
    case 'not_multiple_of':
      return { path, code: 'not_multiple_of', message: clip(`Must be a multiple of ${String(issue.divisor)}.`) };
    case 'unrecognized_keys':
      return { path, code: 'unknown_field', message: 'Contains a field that is not allowed here; remove it.' };
    case 'invalid_union':
      return {
        path,
        code: 'invalid_value',
        message: 'Does not match any accepted form; check the field descriptions.',
      };
    case 'invalid_key':
      return { path, code: 'invalid_key', message: 'Contains a key that is not allowed here.' };
    case 'invalid_element':
      return { path, code: 'invalid_value', message: 'Contains an element that is not allowed here.' };
    case 'invalid_value':
      return { path, code: 'invalid_choice', message: describeChoices(issue.values) };
    case 'custom':
      return { path, code: 'invalid_value', message: safeCustomMessage(issue) };
    default:
      return { path, code: 'invalid_value', message: 'Is not valid here.' };
  }
}

/**
 * A refinement may carry a vetted message in `params.diagnostic` (our own text,
 * never input); anything else gets generic guidance.
 */
function safeCustomMessage(issue: z.core.$ZodIssueCustom): string {
  const vetted = issue.params?.['diagnostic'];
  return typeof vetted === 'string' ? clip(vetted) : 'Is not valid here.';
}

/** Prefixes every diagnostic path, e.g. `["calls", 3]` for a batch call's issues. */
export function prefixDiagnostics(prefix: readonly (string | number)[], issues: ValidationIssue[]): ValidationIssue[] {
  return issues.map((i) => ({ ...i, path: clipPath([...prefix, ...i.path]) }));
}

/**
 * Deduplicates and bounds diagnostics: at most 20 entries, the last an omission
 * notice when more remain.
 */
export function boundDiagnostics(issues: ValidationIssue[]): ValidationIssue[] {
  const seen = new Set<string>();
  const unique: ValidationIssue[] = [];
  for (const issue of issues) {
    const key = JSON.stringify([issue.path, issue.code, issue.message]);
    if (seen.has(key)) continue;
    seen.add(key);
    unique.push({ path: clipPath(issue.path), code: issue.code, message: clip(issue.message) });
  }
  if (unique.length <= MAX_DIAGNOSTICS) return unique;
  const kept = unique.slice(0, MAX_DIAGNOSTICS - 1);
  const omitted = unique.length - kept.length;
  kept.push({
    path: [],
    code: 'more_errors',
    message: `${omitted} more problem(s) were not listed; fix these and call again.`,
  });
  return kept;
}

/** The parts of a zod 4 schema definition the path walk reads. */
interface SchemaDef {
  type: string;
  shape?: Record<string, Schema>;
  element?: Schema;
  items?: Schema[];
  rest?: Schema | null;
  options?: Schema[];
  innerType?: Schema;
  in?: Schema;
  left?: Schema;
  right?: Schema;
  getter?: () => Schema;
}

const WRAPPERS = new Set([
  'optional',
  'nullable',
  'default',
  'prefault',
  'readonly',
  'catch',
  'nonoptional',
  'success',
]);

function defOf(schema: Schema): SchemaDef {
  return (schema as unknown as { _zod: { def: SchemaDef } })._zod.def;
}

/** The schema of `key` inside `schema`, or null when `key` is not a declared field or element of it. */
function childSchema(schema: Schema, key: string | number, depth = 0): Schema | null {
  if (depth > 32) return null;
  const def = defOf(schema);
  if (WRAPPERS.has(def.type) && def.innerType) return childSchema(def.innerType, key, depth + 1);
  switch (def.type) {
    case 'pipe':
      return def.in ? childSchema(def.in, key, depth + 1) : null;
    case 'lazy':
      return def.getter ? childSchema(def.getter(), key, depth + 1) : null;
    case 'object':
      return typeof key === 'string' && def.shape && Object.hasOwn(def.shape, key) ? (def.shape[key] ?? null) : null;
    case 'array':
      return typeof key === 'number' ? (def.element ?? null) : null;
    case 'tuple':
      return typeof key === 'number' ? (def.items?.[key] ?? def.rest ?? null) : null;
    case 'union':
      for (const option of def.options ?? []) {
        const child = childSchema(option, key, depth + 1);
        if (child) return child;
      }
      return null;
    case 'intersection':
      return (
        (def.left && childSchema(def.left, key, depth + 1)) ||
        (def.right && childSchema(def.right, key, depth + 1)) ||
        null
      );
    default:
      // A record's keys, and anything inside an unknown value, are the caller's own names, never canonical.
      return null;
  }
}

/**
 * The longest prefix of `path` made of the schema's own field names and array
 * indices (SPEC §4: canonical paths). A record key or a key inside a free-form
 * value is submitted text, so the path stops at the object holding it.
 */
export function canonicalPath(schema: Schema, path: ValidationIssue['path']): ValidationIssue['path'] {
  const kept: ValidationIssue['path'] = [];
  let current: Schema | null = schema;
  for (const part of path) {
    current = current ? childSchema(current, part) : null;
    if (!current) break;
    kept.push(part);
  }
  return kept;
}

/**
 * Converts a zod error into bounded, value-free diagnostics. Given the schema
 * that failed, each path is cut to its {@link canonicalPath} first.
 */
export function diagnosticsFromZod(
  error: { issues: readonly z.core.$ZodIssue[] },
  prefix: readonly (string | number)[] = [],
  schema?: Schema,
): ValidationIssue[] {
  const issues = error.issues.map((issue) => {
    const diagnostic = toDiagnostic(issue);
    return schema ? { ...diagnostic, path: canonicalPath(schema, diagnostic.path) } : diagnostic;
  });
  return boundDiagnostics(prefixDiagnostics(prefix, issues));
}

/** The result of {@link parseWithDiagnostics}. */
export type Parsed<T> = { ok: true; data: T } | { ok: false; issues: ValidationIssue[] };

/**
 * Parses a value and, on failure, returns bounded diagnostics (canonical paths
 * prefixed by `prefix`). The input is reported to our own mapper only, so a missing field
 * can be told from a wrong one; no value ever reaches a message.
 */
export function parseWithDiagnostics<S extends Schema>(
  schema: S,
  value: unknown,
  prefix: readonly (string | number)[] = [],
): Parsed<z.core.output<S>> {
  const parsed = z.safeParse(schema, value, { reportInput: true });
  if (parsed.success) return { ok: true, data: parsed.data };
  return { ok: false, issues: diagnosticsFromZod(parsed.error, prefix, schema) };
}
