/**
 * Checks `expectedRevisions` (SPEC §5). A mutation that declares revision
 * domains must carry exactly those domains; a stale value is a
 * `revision_conflict` with the current values, and nothing runs.
 */
import { makeError, type ErrorObject, type Revisions } from '../../protocol/index.js';
import type { ControlSpec } from '../declare/declare.js';
import { invalidInput } from '../dispatch/validation.js';

const PATH = ['expectedRevisions'];

function domainList(domains: readonly string[]): string {
  return domains.length > 0 ? domains.join(', ') : 'none (omit expectedRevisions)';
}

function shapeError(spec: ControlSpec, expected: Revisions | undefined): ErrorObject | null {
  const declared = spec.revisionDomains ?? [];
  const given = Object.keys(expected ?? {});
  const hint = `send exactly these domains from controllerRevisions: ${domainList(declared)}.`;
  if (given.some((domain) => !declared.includes(domain))) {
    const message = `expectedRevisions names a domain this control does not declare; ${hint}`;
    return invalidInput(message, [{ path: PATH, code: 'unknown_field', message }]);
  }
  if (!spec.mutation || declared.length === 0) return null;
  if (expected === undefined) {
    const message = `Required for this mutation: expectedRevisions; ${hint}`;
    return invalidInput(message, [{ path: PATH, code: 'required', message }]);
  }
  const missing = declared.filter((domain) => !given.includes(domain));
  if (missing.length > 0) {
    const message = `expectedRevisions is missing ${missing.join(', ')}; ${hint}`;
    return invalidInput(message, [{ path: PATH, code: 'required', message }]);
  }
  return null;
}

/**
 * `currentOf` gives the current values (read only when `expected` names some).
 * Null when the call may run; otherwise `invalid_input` (missing or undeclared
 * domain) or `revision_conflict` with `details.current`. A read may carry
 * declared domains too, and is then held to them.
 */
export function checkRevisions(
  spec: ControlSpec,
  expected: Revisions | undefined,
  currentOf: () => Revisions,
): ErrorObject | null {
  const shape = shapeError(spec, expected);
  if (shape) return shape;
  // Read only when there is something to compare: most calls (reads) carry no expectedRevisions.
  if (expected === undefined) return null;
  const current = currentOf();
  const stale = Object.entries(expected).some(([domain, value]) => current[domain] !== value);
  if (!stale) return null;
  return makeError(
    'revision_conflict',
    'The target changed since you read it. Re-read tradescript_get_context, reconsider, and send a new operation (never this stale one).',
    { details: { current } },
  );
}
