/**
 * Event projection (SPEC §7, §6): every raw event a source emits is parsed
 * with its channel's event schema, checked against the JSON depth and string
 * limits and a per-event size cap, made plain JSON and redacted. What fails
 * becomes a drop marker: the bridge still gives it a sequence number, so every
 * drop is a visible gap.
 */
import * as z from 'zod/mini';
import { DEFAULT_LIMITS, KB, checkJsonShape, utf8Length, type RelayLimits } from '../../protocol/index.js';
import { redactJson } from '../dispatch/redact.js';

/** Most UTF-8 bytes of one projected event's JSON. */
export const MAX_EVENT_BYTES = 16 * KB;

/**
 * Levels above a payload in the deepest answer that carries it
 * (`data.events[i].payload` inside the envelope), taken off the depth limit.
 */
export const EVENT_DEPTH_OFFSET = 4;

/** The event's schema failed, or it could not be made JSON. */
export const DROP_INVALID: unique symbol = Symbol('invalid');
/** The event broke a depth, string or size limit. */
export const DROP_OVERSIZED: unique symbol = Symbol('oversized');

/** A projected payload, or why it was dropped. */
export type Projection = unknown;

/** The limits one payload is checked against. */
export interface EventBounds {
  /** Deepest nesting of the payload itself. */
  readonly depth: number;
  /** Longest string (and key). */
  readonly stringLength: number;
  /** Most UTF-8 bytes of the payload's JSON. */
  readonly maxBytes: number;
}

/** The bounds of a payload under the relay's limits (default: the product maxima). */
export function eventBounds(limits: Pick<RelayLimits, 'jsonDepth' | 'stringLength'> = DEFAULT_LIMITS): EventBounds {
  return {
    depth: limits.jsonDepth - EVENT_DEPTH_OFFSET,
    stringLength: limits.stringLength,
    maxBytes: MAX_EVENT_BYTES,
  };
}

/** Projects one raw event; returns the payload or a drop symbol. Never throws. */
export type Projector = (raw: unknown, bounds: EventBounds) => Projection;

/**
 * The reference projection: parse, bound, make JSON, redact (`redact`,
 * default {@link redactJson}), then cap the size of what would travel.
 */
export function projectWithSchema(
  schema: z.core.$ZodType,
  raw: unknown,
  bounds: EventBounds,
  redact: (value: unknown) => unknown = redactJson,
): Projection {
  let parsed: unknown;
  try {
    const result = z.safeParse(schema, raw);
    if (!result.success) return DROP_INVALID;
    parsed = result.data;
  } catch {
    return DROP_INVALID;
  }
  if (checkJsonShape(parsed, { jsonDepth: bounds.depth, stringLength: bounds.stringLength })) return DROP_OVERSIZED;
  let value: unknown;
  try {
    const text = JSON.stringify(parsed);
    if (text === undefined) return DROP_INVALID;
    value = redact(JSON.parse(text));
  } catch {
    return DROP_INVALID;
  }
  return fitsEvent(value, bounds) ? value : DROP_OVERSIZED;
}

/** True when a payload's JSON is within the size cap. */
export function fitsEvent(value: unknown, bounds: EventBounds): boolean {
  const text = JSON.stringify(value) ?? 'null';
  // A UTF-16 unit is one to three UTF-8 bytes: skip the encoder when the answer is clear.
  if (text.length * 3 <= bounds.maxBytes) return true;
  if (text.length > bounds.maxBytes) return false;
  return utf8Length(text) <= bounds.maxBytes;
}
