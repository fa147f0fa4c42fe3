/**
 * Runs a read (`mutation: false`): retried automatically on transient broker
 * failures (SPEC §5), abandoned when the client cancels or the deadline
 * passes, its result validated, redacted and bounded (SPEC §6).
 */
import type { CallEnv, CallOutcome, HostCore } from '../core.js';
import { requestStop, settle, type Settled } from '../dispatch/deadline.js';
import { controlFailed, isRetryableReadFailure, mapFailure } from '../outcomes/brokerErrors.js';
import { currentRevisions, invoker, startFrame } from '../dispatch/invocation.js';
import { limitExceeded } from '../../protocol/index.js';
import { fitResultLimit, prepareResult } from '../dispatch/resultLimits.js';
import { callReceipt, errorReceipt, type DispatchFrame } from '../dispatch/receipts.js';
import { withReadRetry, type AttemptResult } from './retry.js';
import type { ResolvedCall } from '../dispatch/validation.js';

function finishRead(core: HostCore, env: CallEnv, r: ResolvedCall, frame: DispatchFrame, raw: unknown): CallOutcome {
  const prepared = prepareResult(r.spec.result, raw, env.limits);
  const now = core.now();
  const after = currentRevisions(core, r);
  if (!prepared.ok && prepared.problem === 'schema') {
    const message =
      'The control answered with a result that does not match its declared schema; re-read and try again.';
    return { ok: false, error: controlFailed(errorReceipt(frame, after, now), message) };
  }
  if (!prepared.ok) return { ok: false, error: limitExceeded(prepared.limit, prepared.max) };
  return fitResultLimit(callReceipt(frame, after, now, prepared.value), env.limits);
}

function attemptResult(
  core: HostCore,
  env: CallEnv,
  r: ResolvedCall,
  frame: DispatchFrame,
  settled: Settled<unknown>,
): AttemptResult<CallOutcome> {
  if (settled.kind === 'value') return { done: true, value: finishRead(core, env, r, frame, settled.value) };
  const receipt = errorReceipt(frame, currentRevisions(core, r), core.now());
  if (settled.kind === 'aborted') {
    const message = 'The read was cancelled or did not answer before the deadline; re-read and try again.';
    return { done: false, retryable: false, value: { ok: false, error: controlFailed(receipt, message) } };
  }
  const mapped = mapFailure(settled.error, { mutation: false, accessClass: r.spec.accessClass, receipt });
  return { done: false, retryable: isRetryableReadFailure(settled.error), value: { ok: false, error: mapped.error } };
}

/** Runs a read to its outcome. */
export async function runRead(core: HostCore, env: CallEnv, r: ResolvedCall): Promise<CallOutcome> {
  // No signal (nor deadline timer) unless the control waits or reads ctx.signal.
  const stop = requestStop(env.cancel, env.deadline);
  const mount = r.mount;
  if (!mount) throw new Error('Policy admitted a control that is not mounted.');
  const frame = startFrame(core, r);
  const run = invoker(r, env, stop, mount.revisions);
  return withReadRetry(
    async () => attemptResult(core, env, r, frame, await settle(run, stop)),
    (ms) => core.sleep(ms, stop.signal),
    () => env.deadline.remaining(),
    () => stop.aborted,
  );
}
