/**
 * Runs a mutation (SPEC §5): under its controller's lock, the final revision
 * check, then record the attempt, dispatch exactly once, and record the
 * outcome. Nothing here ever dispatches twice; a deadline or a lost answer
 * after dispatch is `uncertain_execution`.
 */
import { compactReceipt, makeError, targetKey } from '../../protocol/index.js';
import { mapFailure, mutationFailureState, uncertainExecution } from '../outcomes/brokerErrors.js';
import type { CallEnv, CallOutcome, HostCore } from '../core.js';
import { cancelOf, settle, type Settled } from './deadline.js';
import { currentRevisions, domainsOf, invoker, notDispatched, startFrame } from './invocation.js';
import type { KeyedLock } from './keyedLock.js';
import type { LedgerEntry, LedgerState } from '../ledger/operationLedger.js';
import { fitResultLimit, prepareResult } from './resultLimits.js';
import { callReceipt, errorReceipt, isoTime, type DispatchFrame } from './receipts.js';
import { checkRevisions } from '../policy/revisionCheck.js';
import { bumpUntouched, trackBumps, type TrackingRevisionHandle } from '../policy/revisions.js';
import type { ResolvedCall } from './validation.js';

/** What a mutation run needs beyond the call. */
export interface MutationRun {
  readonly fingerprint: string;
  /** Attempts already made under this operation id (refusals allow another). */
  readonly previousAttempts: number;
  readonly locks: KeyedLock;
}

type Recorded = { outcome: CallOutcome; state: LedgerState };

function succeeded(core: HostCore, env: CallEnv, r: ResolvedCall, frame: DispatchFrame, raw: unknown): Recorded {
  const prepared = prepareResult(r.spec.result, raw, env.limits);
  const after = currentRevisions(core, r);
  if (!prepared.ok && prepared.problem === 'schema') {
    const message =
      'The control answered, but not with its declared result, so the outcome is uncertain. Reconcile with explicit reads before anything else.';
    return {
      outcome: { ok: false, error: uncertainExecution(errorReceipt(frame, after, core.now()), message) },
      state: 'uncertain',
    };
  }
  const receipt = callReceipt(frame, after, core.now(), prepared.ok ? prepared.value : null);
  // The mutation happened: a result over a limit is left out, never turned into an error that hides it.
  if (!prepared.ok)
    return { outcome: { ok: true, receipt: compactReceipt(receipt, prepared.limit) }, state: 'completed' };
  const fitted = fitResultLimit(receipt, env.limits);
  return { outcome: fitted.ok ? fitted : { ok: true, receipt: compactReceipt(receipt) }, state: 'completed' };
}

function settleOutcome(
  core: HostCore,
  env: CallEnv,
  r: ResolvedCall,
  frame: DispatchFrame,
  settled: Settled<unknown>,
  revisions: TrackingRevisionHandle,
): Recorded {
  const state =
    settled.kind === 'value'
      ? 'completed'
      : settled.kind === 'aborted'
        ? 'uncertain'
        : mutationFailureState(settled.error);
  if (state === 'completed' || state === 'uncertain') bumpUntouched(revisions, domainsOf(r));
  if (settled.kind === 'value') return succeeded(core, env, r, frame, settled.value);
  const receipt = errorReceipt(frame, currentRevisions(core, r), core.now());
  if (settled.kind === 'aborted') {
    const message =
      'The control did not answer before the call deadline; it may still act. Reconcile with explicit reads before anything else.';
    return { outcome: { ok: false, error: uncertainExecution(receipt, message) }, state };
  }
  const mapped = mapFailure(settled.error, { mutation: true, accessClass: r.spec.accessClass, receipt });
  return { outcome: { ok: false, error: mapped.error }, state: mapped.state };
}

function attemptEntry(env: CallEnv, r: ResolvedCall, run: MutationRun, frame: DispatchFrame): LedgerEntry {
  const at = isoTime(frame.dispatchedAtMs);
  return {
    sessionId: env.sessionId,
    namespace: env.attachment.namespace,
    operationId: frame.operationId,
    fingerprint: run.fingerprint,
    state: 'attempted',
    attempts: run.previousAttempts + 1,
    controlId: frame.controlId,
    target: frame.target,
    mutation: true,
    revisionsBefore: frame.revisionsBefore,
    dispatchedAt: at,
    updatedAt: at,
    outcome: null,
  };
}

async function dispatchOnce(core: HostCore, env: CallEnv, r: ResolvedCall, run: MutationRun): Promise<CallOutcome> {
  const conflict = checkRevisions(r.spec, r.call.expectedRevisions, () => currentRevisions(core, r));
  if (conflict) return { ok: false, error: conflict };
  // A client that cancelled before dispatch no longer wants the call; after dispatch it runs on.
  if (env.deadline.aborted || env.cancel.aborted) return { ok: false, error: notDispatched() };
  const mount = r.mount;
  if (!mount) throw new Error('Policy admitted a control that is not mounted.');
  const frame = startFrame(core, r);
  const entry = attemptEntry(env, r, run, frame);
  try {
    await core.ledger.put(entry);
  } catch {
    return {
      ok: false,
      error: makeError('internal_error', 'The operation ledger could not record this attempt; nothing was dispatched.'),
    };
  }
  const revisions = trackBumps(mount.revisions);
  // The control's signal never aborts (it runs to its outcome); the wait for it ends at the deadline.
  const settled = await settle(invoker(r, env, cancelOf(), revisions), env.deadline);
  const { outcome, state } = settleOutcome(core, env, r, frame, settled, revisions);
  // The outcome stands even if it cannot be written: the next reuse then finds `attempted`, which is uncertain.
  await core.ledger.put({ ...entry, state, outcome, updatedAt: isoTime(core.now()) }).catch(() => undefined);
  return outcome;
}

/** Runs a mutation to its recorded outcome. */
export async function runMutation(
  core: HostCore,
  env: CallEnv,
  r: ResolvedCall,
  run: MutationRun,
): Promise<CallOutcome> {
  const needsLock = domainsOf(r).length > 0;
  const key = `${targetKey(r.entry.target)}\u0000${r.declaration.name}`;
  const release = needsLock ? await run.locks.acquire(key, env.deadline) : () => undefined;
  if (!release) return { ok: false, error: notDispatched() };
  try {
    return await dispatchOnce(core, env, r, run);
  } finally {
    release();
  }
}
