/**
 * Test support: the SPEC §4 rules every tool result and every `invalid_input`
 * diagnostic list must follow, as checks that return what is wrong (an empty
 * list when nothing is), so property tests can report the breach with the input.
 */
import { isDeepStrictEqual } from 'node:util';
import { z } from 'zod';
import {
  envelopeSchema,
  isWellFormedEnvelope,
  MAX_DIAGNOSTICS,
  MAX_MESSAGE_LENGTH,
  MAX_PATH_COMPONENTS,
  type Envelope,
  type ValidationIssue,
} from '../protocol/index.js';

const AnyEnvelopeSchema = envelopeSchema(z.unknown());

/** A checked result: its envelope, or the breaches found. */
export type EnvelopeCheck = { ok: true; envelope: Envelope<unknown>; text: string } | { ok: false; problems: string[] };

/**
 * Checks SPEC §4 on one tool result: exactly one text item, the same JSON as
 * `structuredContent`, a strict envelope (every error key present), exactly
 * one of data/error non-null, and `isError` true exactly when error is set.
 */
export function checkEnvelope(result: unknown): EnvelopeCheck {
  const r = result as {
    content?: Array<{ type: string; text?: string }>;
    structuredContent?: unknown;
    isError?: boolean;
  };
  const texts = (r.content ?? []).filter((item) => item.type === 'text');
  if (texts.length !== 1 || typeof texts[0]?.text !== 'string') {
    return { ok: false, problems: [`${texts.length} text items instead of one`] };
  }
  const text = texts[0].text;
  let fromText: unknown;
  try {
    fromText = JSON.parse(text);
  } catch {
    return { ok: false, problems: ['the text item is not JSON'] };
  }
  const problems: string[] = [];
  if (!isDeepStrictEqual(fromText, r.structuredContent)) problems.push('structuredContent differs from the text item');
  const parsed = AnyEnvelopeSchema.safeParse(r.structuredContent);
  if (!parsed.success)
    return { ok: false, problems: [...problems, `malformed envelope: ${z.prettifyError(parsed.error)}`] };
  const envelope = r.structuredContent as Envelope<unknown>;
  if (!isWellFormedEnvelope(envelope)) problems.push('not exactly one of data and error is non-null');
  if ((envelope.error !== null) !== (r.isError === true)) problems.push('isError disagrees with error');
  return problems.length > 0 ? { ok: false, problems } : { ok: true, envelope, text };
}

/** Options of {@link checkDiagnostics}. */
export interface DiagnosticsRules {
  /** Every string a path may contain (the schemas' own field names); omitted: not checked. */
  fieldNames?: ReadonlySet<string>;
}

/**
 * Checks SPEC §4 on an `invalid_input` diagnostic list: at least one and at
 * most 20 entries, an omission notice only last and only at 20, at most 16
 * path components of field names or non-negative indices, messages of at most
 * 256 characters, no duplicates.
 */
export function checkDiagnostics(issues: readonly ValidationIssue[], rules: DiagnosticsRules = {}): string[] {
  const problems: string[] = [];
  if (issues.length === 0) problems.push('invalid_input without diagnostics');
  if (issues.length > MAX_DIAGNOSTICS) problems.push(`${issues.length} diagnostics (max ${MAX_DIAGNOSTICS})`);
  const notices = issues.filter((issue) => issue.code === 'more_errors');
  if (notices.length > 1) problems.push('more than one omission notice');
  if (notices.length === 1 && (issues.at(-1)?.code !== 'more_errors' || issues.length !== MAX_DIAGNOSTICS)) {
    problems.push('an omission notice that is not the 20th and last entry');
  }
  const seen = new Set<string>();
  for (const issue of issues) {
    const key = JSON.stringify([issue.path, issue.code, issue.message]);
    if (seen.has(key)) problems.push(`duplicate diagnostic ${key}`);
    seen.add(key);
    if (issue.path.length > MAX_PATH_COMPONENTS) problems.push(`a path of ${issue.path.length} components`);
    if (issue.message.length > MAX_MESSAGE_LENGTH) problems.push(`a message of ${issue.message.length} characters`);
    for (const part of issue.path) {
      if (typeof part === 'number' && !(Number.isInteger(part) && part >= 0)) problems.push(`a path index ${part}`);
      if (typeof part === 'string' && rules.fieldNames && !rules.fieldNames.has(part)) {
        problems.push(`a path component that is not a field name: ${JSON.stringify(part)}`);
      }
    }
  }
  return problems;
}

/** Every property name declared anywhere in a JSON Schema (for {@link DiagnosticsRules.fieldNames}). */
export function schemaFieldNames(schema: unknown, into: Set<string> = new Set()): Set<string> {
  const stack: unknown[] = [schema];
  while (stack.length > 0) {
    const node = stack.pop();
    if (Array.isArray(node)) stack.push(...node);
    else if (node !== null && typeof node === 'object') {
      const record = node as Record<string, unknown>;
      const properties = record['properties'];
      if (properties !== null && typeof properties === 'object')
        for (const key of Object.keys(properties)) into.add(key);
      stack.push(...Object.values(record));
    }
  }
  return into;
}
