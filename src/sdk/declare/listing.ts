/**
 * `tradescript_list_controls` on the page (SPEC §3, §5): the effective
 * controls of one target, paged by a stable opaque cursor, with the
 * unavailable and unclassified ledgers, each bounded with its own total.
 * Never a union across targets.
 */
import {
  DEFAULT_CONTROLS_PAGE,
  DEFAULT_UNAVAILABLE_LIMIT,
  canonicalJson,
  makeError,
  type AdapterMaximum,
  type ControlDescriptor,
  type ErrorObject,
  type Grant,
  type ListControlsData,
  type ListControlsInput,
  type UnavailableControl,
  type UnclassifiedControl,
} from '../../protocol/index.js';
import type { ControlSpec } from './declare.js';
import { describeCached } from './descriptorCache.js';
import { evaluatePolicy } from '../policy/accessPolicy.js';
import { redactBrokerText } from '../dispatch/redact.js';
import type { TargetEntry, TargetRegistry } from './targets.js';
import { invalidInput } from '../dispatch/validation.js';

/** The list request as the page receives it. */
export type ListRequest = Omit<ListControlsInput, 'sessionId'>;

type Filters = Pick<ListRequest, 'controller' | 'accessClass' | 'family' | 'permission' | 'mutation'>;

interface Candidate {
  descriptor: ControlDescriptor;
  method: string;
  spec: ControlSpec;
}

const TARGET_NOT_FOUND =
  'This target is not registered in the session; read availableTargets from tradescript_get_context on the session target.';

/** FNV-1a, to tie a cursor to the query it came from. */
function hash(text: string): string {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i += 1) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h.toString(36);
}

function queryHash(input: ListRequest): string {
  const { target, controller, accessClass, family, permission, mutation } = input;
  return hash(canonicalJson({ target, controller, accessClass, family, permission, mutation }));
}

function encodeCursor(input: ListRequest, afterId: string): string {
  return btoa(JSON.stringify({ q: queryHash(input), a: afterId })).replace(/=+$/, '');
}

/** The control id a cursor points after, or null when it is not one of ours for this query. */
function decodeCursor(input: ListRequest, cursor: string): string | null {
  try {
    const value = JSON.parse(atob(cursor)) as unknown;
    if (typeof value !== 'object' || value === null) return null;
    const { q, a } = value as Record<string, unknown>;
    return q === queryHash(input) && typeof a === 'string' ? a : null;
  } catch {
    return null;
  }
}

function matches(d: ControlDescriptor, f: Filters): boolean {
  return (
    (f.controller === undefined || d.controller === f.controller) &&
    (f.accessClass === undefined || d.accessClass === f.accessClass) &&
    (f.family === undefined || d.family === f.family) &&
    (f.permission === undefined || d.permission === f.permission) &&
    (f.mutation === undefined || d.mutation === f.mutation)
  );
}

/** Declared controls for this target's scope that pass the filters, sorted by id. */
function candidates(registry: TargetRegistry, entry: TargetEntry, filters: Filters): Candidate[] {
  const out: Candidate[] = [];
  for (const declaration of registry.declared()) {
    if (!declaration.targetScopes.includes(entry.target.scope)) continue;
    for (const descriptor of describeCached(declaration)) {
      const spec = declaration.controls[descriptor.method];
      if (spec && matches(descriptor, filters)) out.push({ descriptor, method: descriptor.method, spec });
    }
  }
  return out.sort((a, b) => (a.descriptor.controlId < b.descriptor.controlId ? -1 : 1));
}

function bounded<T>(rows: T[], limit: number): { rows: T[]; total: number; truncated: boolean } {
  return { rows: rows.slice(0, limit), total: rows.length, truncated: rows.length > limit };
}

interface Classified {
  effective: ControlDescriptor[];
  unavailable: UnavailableControl[];
  unclassified: UnclassifiedControl[];
}

/** Sorts each candidate into effective, unavailable (with its layer) or unclassified. */
function classify(
  registry: TargetRegistry,
  entry: TargetEntry,
  input: ListRequest,
  adapter: AdapterMaximum,
  grant: Grant,
): Classified {
  const out: Classified = { effective: [], unavailable: [], unclassified: [] };
  for (const { descriptor, method, spec } of candidates(registry, entry, input)) {
    const mount = entry.mounts.get(descriptor.controller);
    const verdict = evaluatePolicy({ controlId: descriptor.controlId, method, spec, entry, mount, adapter, grant });
    const control = descriptor.controlId;
    if (verdict.allowed) out.effective.push(descriptor);
    else if (verdict.layer === null) out.unclassified.push(withDetail({ control }, verdict.detail));
    else out.unavailable.push(withDetail({ control, reason: verdict.layer }, verdict.detail));
  }
  return out;
}

function invalidCursor(): ErrorObject {
  const message =
    'This cursor is not valid for this query; omit it to start over, or pass nextCursor unchanged with the same filters.';
  return invalidInput(message, [{ path: ['cursor'], code: 'invalid_value', message }]);
}

/** Lists the controls of one registered target. */
export function listControls(
  registry: TargetRegistry,
  input: ListRequest,
  adapter: AdapterMaximum,
  grant: Grant,
): { ok: true; data: ListControlsData } | { ok: false; error: ErrorObject } {
  const entry = registry.get(input.target);
  if (!entry) return { ok: false, error: makeError('target_not_found', TARGET_NOT_FOUND) };
  const after = input.cursor === undefined ? null : decodeCursor(input, input.cursor);
  if (input.cursor !== undefined && after === null) return { ok: false, error: invalidCursor() };
  const { effective, unavailable, unclassified } = classify(registry, entry, input, adapter, grant);
  const rest = after === null ? effective : effective.filter((d) => d.controlId > after);
  const page = rest.slice(0, input.limit ?? DEFAULT_CONTROLS_PAGE);
  const last = page.at(-1);
  const ledgerLimit = input.unavailableLimit ?? DEFAULT_UNAVAILABLE_LIMIT;
  const u = bounded(unavailable, ledgerLimit);
  const c = bounded(unclassified, ledgerLimit);
  const data: ListControlsData = {
    target: entry.target,
    controls: page,
    nextCursor: last && rest.length > page.length ? encodeCursor(input, last.controlId) : null,
    total: effective.length,
    unavailableControls: u.rows,
    unavailableTotal: u.total,
    unavailableTruncated: u.truncated,
    unclassifiedControls: c.rows,
    unclassifiedTotal: c.total,
    unclassifiedTruncated: c.truncated,
  };
  return { ok: true, data };
}

function withDetail<T extends object>(row: T, detail: string | undefined): T & { detail?: string } {
  const text = redactBrokerText(detail);
  return text === null ? row : { ...row, detail: text };
}
