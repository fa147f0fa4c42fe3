/**
 * A byte-equivalent reuse of a recorded operation id (SPEC §5): a completed or
 * definitely rejected operation returns its recorded outcome and nothing runs;
 * a definite refusal allows a new attempt; an uncertain one stays uncertain
 * until the mount's reconciliation proves what happened.
 */
import { compactReceipt, type CallReceipt, type ErrorObject, type ErrorReceipt } from '../../protocol/index.js';
import { controlFailed, uncertainExecution } from '../outcomes/brokerErrors.js';
import type { CallEnv, CallOutcome, HostCore } from '../core.js';
import { settle } from '../dispatch/deadline.js';
import type { LedgerEntry, LedgerOutcome } from './operationLedger.js';
import { fitResultLimit, prepareResult } from '../dispatch/resultLimits.js';
import { isoTime, receiptFromErrorReceipt } from '../dispatch/receipts.js';
import { redactString } from '../dispatch/redact.js';
import { dispatchArgs, type ResolvedCall } from '../dispatch/validation.js';
import type { Reconciliation } from '../types.js';

/** The uncertain outcome of an entry, rebuilt from its attempt when no outcome was written. */
function uncertainOutcome(entry: LedgerEntry): { ok: false; error: ErrorObject } {
  if (entry.outcome && !entry.outcome.ok) return entry.outcome;
  const receipt: ErrorReceipt = {
    operationId: entry.operationId,
    origin: 'mcp',
    controlId: entry.controlId,
    target: entry.target,
    mutation: entry.mutation,
    revisionsBefore: entry.revisionsBefore,
    revisionsAfter: entry.revisionsBefore,
    durationMs: 0,
    dispatchedAt: entry.dispatchedAt,
  };
  const message =
    'This operation was dispatched but its outcome was never recorded (the page may have reloaded). Reconcile with explicit reads before anything else.';
  return { ok: false, error: uncertainExecution(receipt, message) };
}

function happened(r: ResolvedCall, env: CallEnv, receipt: ErrorReceipt, raw: unknown): CallReceipt {
  const prepared = prepareResult(r.spec.result, raw, env.limits);
  const full: CallReceipt = {
    ...receiptFromErrorReceipt(receipt, prepared.ok ? prepared.value : null),
    reconciled: true,
  };
  if (!prepared.ok && prepared.problem === 'shape') return compactReceipt(full, prepared.limit);
  const fitted = fitResultLimit(full, env.limits);
  return fitted.ok ? fitted.receipt : compactReceipt(full);
}

function notHappened(receipt: ErrorReceipt): ErrorObject {
  return controlFailed(
    { ...receipt, reconciled: true },
    'Reconciliation proved this operation did not happen; nothing changed. Re-read the state and send a new operation if it is still wanted.',
  );
}

async function record(core: HostCore, entry: LedgerEntry, outcome: LedgerOutcome): Promise<void> {
  const state = outcome.ok ? 'completed' : 'rejected';
  await core.ledger.put({ ...entry, state, outcome, updatedAt: isoTime(core.now()) }).catch(() => undefined);
}

async function askReconcile(r: ResolvedCall, env: CallEnv, dispatchedAt: string): Promise<Reconciliation> {
  const reconcile = r.mount?.options.reconcile;
  if (!reconcile) return { outcome: 'unknown' };
  const request = { controlId: r.call.controlId, args: dispatchArgs(r), operationId: r.call.operationId, dispatchedAt };
  const settled = await settle(() => reconcile(request), env.deadline);
  return settled.kind === 'value' && typeof settled.value === 'object' && settled.value !== null
    ? settled.value
    : { outcome: 'unknown' };
}

/** The recorded uncertain outcome, with the host's reason why reconciliation proved nothing (bounded, redacted). */
function stillUncertain(recorded: { ok: false; error: ErrorObject }, reason: unknown): CallOutcome {
  const why = typeof reason === 'string' ? redactString(reason.slice(0, 200)) : null;
  return why
    ? {
        ok: false,
        error: { ...recorded.error, message: `${recorded.error.message} Reconciliation proved nothing: ${why}.` },
      }
    : recorded;
}

async function reconcileUncertain(
  core: HostCore,
  env: CallEnv,
  r: ResolvedCall,
  entry: LedgerEntry,
): Promise<CallOutcome> {
  const recorded = uncertainOutcome(entry);
  const receipt = recorded.error.details?.receipt;
  if (!receipt) return recorded;
  const proof = await askReconcile(r, env, receipt.dispatchedAt);
  if (proof.outcome === 'happened') {
    const outcome = { ok: true as const, receipt: happened(r, env, receipt, proof.result) };
    await record(core, entry, outcome);
    return outcome;
  }
  if (proof.outcome === 'not-happened') {
    const outcome = { ok: false as const, error: notHappened(receipt) };
    await record(core, entry, outcome);
    return outcome;
  }
  return stillUncertain(recorded, proof.outcome === 'unknown' ? proof.reason : undefined);
}

/**
 * What a reuse of a recorded entry returns, or null when the call should run
 * afresh (a recorded definite refusal).
 */
export async function reuseRecorded(
  core: HostCore,
  env: CallEnv,
  r: ResolvedCall,
  entry: LedgerEntry,
): Promise<CallOutcome | null> {
  switch (entry.state) {
    case 'completed':
    case 'rejected':
      return entry.outcome ?? uncertainOutcome(entry);
    case 'refused':
      return null;
    case 'uncertain':
    case 'attempted':
      return reconcileUncertain(core, env, r, entry);
  }
}
