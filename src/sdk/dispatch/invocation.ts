/**
 * What dispatching a call needs in common, read or mutation: the dispatch
 * frame (identity and revisions before), the control's context, and the
 * function that hands the call to the control.
 */
import { makeError, type ErrorObject, type Revisions } from '../../protocol/index.js';
import type { CallEnv, HostCore } from '../core.js';
import type { Stop } from './deadline.js';
import type { DispatchFrame } from './receipts.js';
import { dispatchArgs, type ResolvedCall } from './validation.js';
import type { ControlContext, RevisionHandle } from '../types.js';

/** The declared revision domains of the call's control. */
export function domainsOf(resolved: ResolvedCall): readonly string[] {
  return resolved.spec.revisionDomains ?? [];
}

/** Current values of the control's declared domains on its target. */
export function currentRevisions(core: HostCore, resolved: ResolvedCall): Revisions {
  return core.revisions.values(resolved.entry.target, resolved.declaration.name, domainsOf(resolved));
}

/** Starts the evidence of one dispatch. */
export function startFrame(core: HostCore, resolved: ResolvedCall): DispatchFrame {
  return {
    operationId: resolved.call.operationId,
    controlId: resolved.call.controlId,
    target: resolved.entry.target,
    mutation: resolved.spec.mutation,
    revisionsBefore: currentRevisions(core, resolved),
    dispatchedAtMs: core.now(),
  };
}

/** Hands the call to the control: `impl(ctx, ...args)`, with the operation id merged into its options. */
export function invoker(resolved: ResolvedCall, env: CallEnv, stop: Stop, revisions: RevisionHandle): () => unknown {
  const impl = resolved.mount?.impl[resolved.method];
  if (typeof impl !== 'function') throw new Error('Policy admitted a control without an implementation.');
  const ctx: ControlContext = {
    target: resolved.entry.target,
    controlId: resolved.call.controlId,
    operationId: resolved.call.operationId,
    attachment: env.attachment,
    // Made when the control first reads it (every stop builds its signal lazily).
    get signal() {
      return stop.signal;
    },
    revisions,
  };
  const args = dispatchArgs(resolved);
  return () => (impl as (...a: unknown[]) => unknown).call(resolved.mount?.impl, ctx, ...args);
}

/** The request ran out of time (or was cancelled) before the control was dispatched. */
export function notDispatched(): ErrorObject {
  return makeError(
    'control_failed',
    'The request ended (deadline or cancel) before this call was dispatched; nothing ran. Re-read the state and call again.',
  );
}
