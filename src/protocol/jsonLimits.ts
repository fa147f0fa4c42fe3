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
 * strings too.
 */
export function checkJsonShape(
  value: unknown,
  limits: Pick<Limits, 'jsonDepth' | 'stringLength'> = DEFAULT_LIMITS,
): JsonLimitBreach {
  const stack: Array<[unknown, number]> = [[value, 1]];
  while (stack.length > 0) {
    const [node, depth] = stack.pop()!;
    if (typeof node === 'string') {
      if (node.length > limits.stringLength) return { limit: 'stringLength', max: limits.stringLength };
      continue;
    }
    if (node === null || typeof node !== 'object') continue;
    if (depth > limits.jsonDepth) return { limit: 'jsonDepth', max: limits.jsonDepth };
    if (Array.isArray(node)) {
      for (const item of node) stack.push([item, depth + 1]);
    } else {
      for (const [key, item] of Object.entries(node)) {
        if (key.length > limits.stringLength) return { limit: 'stringLength', max: limits.stringLength };
        stack.push([item, depth + 1]);
      }
    }
  }
  return null;
}

const encoder = new TextEncoder();

/** UTF-8 byte length of a value's JSON text. */
export function jsonByteLength(value: unknown): number {
  return encoder.encode(JSON.stringify(value) ?? 'null').byteLength;
}

/** UTF-8 byte length of a string. */
export function utf8Length(text: string): number {
  return encoder.encode(text).byteLength;
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
