/**
 * Size, depth and string-length checks on JSON values, run by our own code on
 * both sides of the relay before anything is parsed against a schema (SPEC §6).
 */
import { DEFAULT_LIMITS, type Limits } from './limits.js';

/** A JSON value. */
export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

/** The first limit a value breaks, or null. */
export type JsonLimitBreach = { limit: 'jsonDepth' | 'stringLength'; max: number } | null;

/**
 * Walks a value iteratively (no recursion, so a hostile depth cannot overflow the
 * stack) and reports the first breach of depth or string length. Keys count as
 * strings too. `reserved` levels are kept free for what the value sits in (at
 * least one level stays); a breach names the limit in force.
 */
export function checkJsonShape(
  value: unknown,
  limits: Pick<Limits, 'jsonDepth' | 'stringLength'> = DEFAULT_LIMITS,
  reserved = 0,
): JsonLimitBreach {
  const deepest = Math.max(1, limits.jsonDepth - reserved);
  // Two parallel stacks and Object.keys, not [node, depth] pairs and Object.entries: this walk runs
  // several times per call on each side (frame, arguments, result) and allocated a pair per value.
  const nodes: unknown[] = [value];
  const depths: number[] = [1];
  while (nodes.length > 0) {
    const node = nodes.pop();
    const depth = depths.pop()!;
    if (typeof node === 'string') {
      if (node.length > limits.stringLength) return { limit: 'stringLength', max: limits.stringLength };
      continue;
    }
    if (node === null || typeof node !== 'object') continue;
    if (depth > deepest) return { limit: 'jsonDepth', max: limits.jsonDepth };
    if (Array.isArray(node)) {
      for (let i = 0; i < node.length; i++) {
        nodes.push(node[i]);
        depths.push(depth + 1);
      }
      continue;
    }
    for (const key of Object.keys(node)) {
      if (key.length > limits.stringLength) return { limit: 'stringLength', max: limits.stringLength };
      nodes.push((node as Record<string, unknown>)[key]);
      depths.push(depth + 1);
    }
  }
  return null;
}

/**
 * How deeply a JSON value's objects and arrays nest (the value itself is level
 * 1) and its longest string or key: what every depth and string-length check
 * reads, so a value measured once can be held to several limits.
 */
export interface JsonShape {
  depth: number;
  longestString: number;
}

/**
 * {@link checkJsonShape}'s walk, measuring the value's {@link JsonShape} on the
 * way (or reporting the first breach, as it does). A walk of its own: the
 * browser bundle, which only checks, does not carry the measuring.
 */
export function measureJsonShape(
  value: unknown,
  limits: Pick<Limits, 'jsonDepth' | 'stringLength'> = DEFAULT_LIMITS,
  reserved = 0,
): JsonShape | NonNullable<JsonLimitBreach> {
  const deepest = Math.max(1, limits.jsonDepth - reserved);
  let deepestSeen = 0;
  let longest = 0;
  // Two parallel stacks and Object.keys, not [node, depth] pairs and Object.entries: this walk runs
  // several times per call on each side (frame, arguments, result) and allocated a pair per value.
  const nodes: unknown[] = [value];
  const depths: number[] = [1];
  while (nodes.length > 0) {
    const node = nodes.pop();
    const depth = depths.pop()!;
    if (typeof node === 'string') {
      if (node.length > limits.stringLength) return { limit: 'stringLength', max: limits.stringLength };
      if (node.length > longest) longest = node.length;
      continue;
    }
    if (node === null || typeof node !== 'object') continue;
    if (depth > deepest) return { limit: 'jsonDepth', max: limits.jsonDepth };
    if (depth > deepestSeen) deepestSeen = depth;
    if (Array.isArray(node)) {
      for (let i = 0; i < node.length; i++) {
        nodes.push(node[i]);
        depths.push(depth + 1);
      }
      continue;
    }
    for (const key of Object.keys(node)) {
      if (key.length > limits.stringLength) return { limit: 'stringLength', max: limits.stringLength };
      if (key.length > longest) longest = key.length;
      nodes.push((node as Record<string, unknown>)[key]);
      depths.push(depth + 1);
    }
  }
  return { depth: deepestSeen, longestString: longest };
}

/**
 * Levels a control's result may sit under in the deepest answer (a batch
 * outcome's `error.details.result` inside the envelope), taken off the depth
 * limit so every answer that carries it fits.
 */
export const RESULT_DEPTH_OFFSET = 6;

/**
 * The first limit a control's result breaks where it travels (a receipt's
 * `result`, `error.details.result`), or null: its strings within
 * `stringLength`, its depth within `jsonDepth` less {@link RESULT_DEPTH_OFFSET}.
 * The page applies it to what it returns, the server to what a page answers.
 */
export function checkResultShape(value: unknown, limits: Pick<Limits, 'jsonDepth' | 'stringLength'>): JsonLimitBreach {
  return checkJsonShape(value, limits, RESULT_DEPTH_OFFSET);
}

/**
 * True when a value of this shape, and every value inside it, passes both
 * {@link checkJsonShape} and {@link checkResultShape} under `limits`: a value
 * measured once need not be walked again for them.
 */
export function shapeFitsResultLimits(shape: JsonShape, limits: Pick<Limits, 'jsonDepth' | 'stringLength'>): boolean {
  return shape.depth <= limits.jsonDepth - RESULT_DEPTH_OFFSET && shape.longestString <= limits.stringLength;
}

/**
 * Keys no argument may carry: `__proto__` as an own key of parsed JSON would
 * set an object's prototype wherever a schema copies keys (a record, a loose
 * object), so it is dropped silently or injects inherited fields.
 */
export const FORBIDDEN_KEYS: ReadonlySet<string> = new Set(['__proto__']);

/**
 * The path of the first object that carries a {@link FORBIDDEN_KEYS} key as its
 * own property, or null. Iterative; run {@link checkJsonShape} first to bound the depth.
 */
export function findForbiddenKey(value: unknown): Array<string | number> | null {
  // Each object or array visited keeps a link to its parent; a path is built only for a hit.
  const stack: Visit[] = [];
  const push = (node: unknown, key: string | number, parent: Visit | null) => {
    if (node !== null && typeof node === 'object') stack.push({ node, key, parent });
  };
  push(value, '', null);
  while (stack.length > 0) {
    const visit = stack.pop()!;
    const { node } = visit;
    if (Array.isArray(node)) {
      node.forEach((item, index) => push(item, index, visit));
      continue;
    }
    for (const key of Object.keys(node)) {
      if (FORBIDDEN_KEYS.has(key)) return pathTo(visit);
      push((node as Record<string, unknown>)[key], key, visit);
    }
  }
  return null;
}

/** An object or array on the way down, linked to where it sits. */
interface Visit {
  node: object;
  key: string | number;
  parent: Visit | null;
}

function pathTo(visit: Visit): Array<string | number> {
  const path: Array<string | number> = [];
  for (let at: Visit | null = visit; at?.parent; at = at.parent) path.push(at.key);
  return path.reverse();
}

const encoder = new TextEncoder();
/** Any UTF-16 unit outside ASCII (where a unit is no longer one UTF-8 byte). */
const NON_ASCII = /[^\u0000-\u007f]/;

/** UTF-8 byte length of a value's JSON text. */
export function jsonByteLength(value: unknown): number {
  return utf8Length(JSON.stringify(value) ?? 'null');
}

/**
 * UTF-8 byte length of a string. ASCII text (most JSON) is counted without
 * encoding it: encoding allocated a copy of every result on the call path.
 */
export function utf8Length(text: string): number {
  return NON_ASCII.test(text) ? encoder.encode(text).byteLength : text.length;
}

/** Canonical JSON: object keys sorted at every level, so equal values give equal text. */
export function canonicalJson(value: unknown): string {
  return JSON.stringify(sortKeys(value));
}

function sortKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortKeys);
  if (value === null || typeof value !== 'object') return value;
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(value).sort()) {
    const item = (value as Record<string, unknown>)[key];
    if (item !== undefined) out[key] = sortKeys(item);
  }
  return out;
}
