/**
 * The SDK's half of "validate" (SPEC §5): the target is registered, the control
 * exists for it, the argument count is within limits and the signature, and
 * each argument passes its own schema. Diagnostics never echo what was sent.
 */
import {
  boundDiagnostics,
  limitExceeded,
  parseWithDiagnostics,
  makeError,
  type ErrorObject,
  type RelayCall,
  type RelayLimits,
  type ValidationIssue,
} from '../../protocol/index.js';
import type { ControlSpec, ControllerDeclaration } from '../declare/declare.js';
import type { Mount, TargetEntry, TargetRegistry } from '../declare/targets.js';

/** A call whose target and control are known and whose arguments passed their schemas. */
export interface ResolvedCall {
  readonly call: RelayCall;
  readonly entry: TargetEntry;
  readonly declaration: ControllerDeclaration;
  readonly method: string;
  readonly spec: ControlSpec;
  /** The controller's mount on this target, if any (policy decides what a missing one means). */
  readonly mount: Mount | undefined;
  /** Parsed argument values, in order (defaults applied). */
  readonly args: unknown[];
}

/** The result of resolving a call. */
export type Resolution = { ok: true; resolved: ResolvedCall } | { ok: false; error: ErrorObject };

/** `invalid_input` with value-free diagnostics. */
export function invalidInput(message: string, issues: ValidationIssue[]): ErrorObject {
  return makeError('invalid_input', message, { validation_errors: boundDiagnostics(issues) });
}

function findControl(
  registry: TargetRegistry,
  entry: TargetEntry,
  controlId: string,
): { declaration: ControllerDeclaration; method: string; spec: ControlSpec } | null {
  const dot = controlId.indexOf('.');
  if (dot <= 0) return null;
  const declaration = registry.controller(controlId.slice(0, dot));
  const method = controlId.slice(dot + 1);
  if (!declaration || !Object.hasOwn(declaration.controls, method)) return null;
  if (!declaration.targetScopes.includes(entry.target.scope)) return null;
  const spec = declaration.controls[method];
  return spec ? { declaration, method, spec } : null;
}

function parseArgs(spec: ControlSpec, args: readonly unknown[]): { values: unknown[]; issues: ValidationIssue[] } {
  const values: unknown[] = [];
  const issues: ValidationIssue[] = [];
  spec.args.forEach((argSpec, index) => {
    const parsed = parseWithDiagnostics(argSpec.schema, args[index], ['args', index]);
    if (parsed.ok) values.push(parsed.data);
    else issues.push(...parsed.issues);
  });
  return { values, issues };
}

/** Resolves a call against the registered targets and declared controls. */
export function resolveCall(registry: TargetRegistry, call: RelayCall, limits: RelayLimits): Resolution {
  const entry = registry.get(call.target);
  if (!entry) {
    return fail(
      'target_not_found',
      'This target is not registered in the session; read availableTargets from tradescript_get_context on the session target.',
    );
  }
  const found = findControl(registry, entry, call.controlId);
  if (!found) {
    return fail(
      'control_not_found',
      'No control with this id exists for this target; call tradescript_list_controls for this target.',
    );
  }
  if (call.args.length > limits.callArgs) return { ok: false, error: limitExceeded('callArgs', limits.callArgs) };
  const { spec } = found;
  if (call.args.length > spec.args.length) {
    const message = `Too many arguments: this control takes at most ${spec.args.length}; see its descriptor args.`;
    return { ok: false, error: invalidInput(message, [{ path: ['args'], code: 'too_big', message }]) };
  }
  const { values, issues } = parseArgs(spec, call.args);
  if (issues.length > 0) {
    return {
      ok: false,
      error: invalidInput(
        'The arguments do not match the control signature; fix the listed fields and call again.',
        issues,
      ),
    };
  }
  const mount = entry.mounts.get(found.declaration.name);
  return { ok: true, resolved: { call, entry, ...found, mount, args: values } };
}

function fail(code: 'target_not_found' | 'control_not_found', message: string): Resolution {
  return { ok: false, error: makeError(code, message) };
}

/**
 * The arguments the control receives: parsed values, with the operation id
 * merged into the guarded options object (after the byte-equivalence check,
 * which used the arguments as submitted).
 */
export function dispatchArgs(resolved: ResolvedCall): unknown[] {
  const args = [...resolved.args];
  const index = resolved.spec.operationOptionsIndex;
  if (index === undefined) return args;
  const options = args[index];
  const operationId = resolved.call.operationId;
  if (options === undefined || options === null) args[index] = { operationId };
  else if (typeof options === 'object' && !Array.isArray(options)) args[index] = { ...options, operationId };
  return args;
}
