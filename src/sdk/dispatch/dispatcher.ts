/**
 * The dispatcher (SPEC §5), in the contract's order: validate → ledger lookup
 * → operation id required → policy → revisions → confirmation → record the
 * attempt → dispatch → record the outcome. Because the ledger comes before
 * revisions, a faithful retry of a call that succeeded gets its receipt, never
 * a `revision_conflict`.
 */
import { makeError, type ErrorObject, type RelayCall } from '../../protocol/index.js';
import { askConfirmation, executionDeclined } from '../policy/confirmation.js';
import type { CallEnv, CallOutcome, HostCore } from '../core.js';
import { requestStop } from './deadline.js';
import { currentRevisions } from './invocation.js';
import { KeyedLock } from './keyedLock.js';
import { fingerprintOf, type LedgerEntry } from '../ledger/operationLedger.js';
import { evaluatePolicy, policyError } from '../policy/accessPolicy.js';
import { reuseRecorded } from '../ledger/reuse.js';
import { checkRevisions } from '../policy/revisionCheck.js';
import { runMutation } from './runMutation.js';
import { runRead } from '../reads/runRead.js';
import { resolveCall, type ResolvedCall } from './validation.js';

interface Running {
  readonly fingerprint: Fingerprint;
  readonly outcome: Promise<CallOutcome>;
}

/**
 * A call's fingerprint, computed when first asked: a read under a
 * server-generated operation id (nearly every read) is never compared with
 * anything, and canonical JSON of its arguments cost every call a walk and a
 * stringify (issue 15).
 */
type Fingerprint = () => string;

function fingerprintFor(call: RelayCall): Fingerprint {
  let text: string | null = null;
  return () => (text ??= fingerprintOf(call));
}

function fail(error: ErrorObject): CallOutcome {
  return { ok: false, error };
}

function operationIdConflict(): CallOutcome {
  return fail(
    makeError(
      'operation_id_conflict',
      'This operationId was already used in this attachment for a different request. Use a new operationId for a new operation; reuse one only to retry the identical call.',
    ),
  );
}

const LEDGER_UNREADABLE =
  'The operation ledger could not read what happened to this operationId, so its outcome is unknown; nothing was dispatched. Reconcile with explicit reads (orders, blotter) before anything else, and only if nothing happened send a new operation with a new operationId.';

/** An unexpected defect: the call's outcome says so instead of throwing. */
export function internalError(): ErrorObject {
  return makeError(
    'internal_error',
    'The terminal SDK hit an unexpected error; nothing more is known about this call.',
  );
}

/** Runs calls for one host. */
export class Dispatcher {
  private readonly running = new Map<string, Running>();
  private readonly locks = new KeyedLock();

  constructor(private readonly core: HostCore) {}

  /** Runs one call to its outcome and reports it to the activity feed. Never throws. */
  async run(call: RelayCall, env: CallEnv): Promise<CallOutcome> {
    const started = this.core.now();
    const outcome = await this.lookup(call, env).catch(() => fail(internalError()));
    this.core.activity({
      at: new Date(started).toISOString(),
      controlId: call.controlId,
      target: call.target,
      clientName: env.attachment.clientName,
      outcome: outcome.ok ? 'ok' : outcome.error.code,
      durationMs: Math.max(0, this.core.now() - started),
    });
    return outcome;
  }

  /** Validation, then the ledger: a call with the same key while the first runs waits for the first's outcome. */
  private async lookup(call: RelayCall, env: CallEnv): Promise<CallOutcome> {
    const resolution = resolveCall(this.core.registry, call, env.limits);
    if (!resolution.ok) return fail(resolution.error);
    const key = JSON.stringify([env.sessionId, env.attachment.namespace, call.operationId]);
    const fingerprint = fingerprintFor(call);
    const first = this.running.get(key);
    if (first) return first.fingerprint() === fingerprint() ? first.outcome : operationIdConflict();
    const outcome = this.recorded(resolution.resolved, fingerprint, env);
    this.running.set(key, { fingerprint, outcome });
    try {
      return await outcome;
    } finally {
      if (this.running.get(key)?.outcome === outcome) this.running.delete(key);
    }
  }

  private async recorded(r: ResolvedCall, fingerprint: Fingerprint, env: CallEnv): Promise<CallOutcome> {
    // The server generated this id for this call alone (attachment-unique): nothing can be
    // recorded under it yet, so the IndexedDB read would only cost every read its round trip.
    if (!r.call.callerOperationId) return this.fresh(r, fingerprint, env, 0);
    let entry: LedgerEntry | undefined;
    try {
      const key = { sessionId: env.sessionId, namespace: env.attachment.namespace, operationId: r.call.operationId };
      entry = await this.core.ledger.get(key);
    } catch {
      // An unreadable entry may be a dispatched mutation: never run anything under its id.
      return fail(makeError('internal_error', LEDGER_UNREADABLE));
    }
    if (entry && entry.fingerprint !== fingerprint()) return operationIdConflict();
    if (entry) {
      const reused = await reuseRecorded(this.core, env, r, entry);
      if (reused) return reused;
    }
    return this.fresh(r, fingerprint, env, entry?.attempts ?? 0);
  }

  private async fresh(
    r: ResolvedCall,
    fingerprint: Fingerprint,
    env: CallEnv,
    previousAttempts: number,
  ): Promise<CallOutcome> {
    if (r.spec.risk === 'financial' && !r.call.callerOperationId) {
      return fail(
        makeError(
          'operation_id_required',
          'This financial control needs context.operationId: a new caller-owned id (1-128 characters) for this operation, reused only to retry the identical call.',
        ),
      );
    }
    const verdict = evaluatePolicy({
      controlId: r.call.controlId,
      method: r.method,
      spec: r.spec,
      entry: r.entry,
      mount: r.mount,
      adapter: env.adapter,
      grant: this.core.grant(),
    });
    if (!verdict.allowed) return fail(policyError(verdict, r.spec));
    const stale = checkRevisions(r.spec, r.call.expectedRevisions, () => currentRevisions(this.core, r));
    if (stale) return fail(stale);
    if (!(await this.confirmed(r, env))) return fail(executionDeclined());
    if (!r.spec.mutation) return runRead(this.core, env, r);
    return runMutation(this.core, env, r, { fingerprint: fingerprint(), previousAttempts, locks: this.locks });
  }

  /** Trade-class calls ask the person when the host opted in; everything else is confirmed. */
  private async confirmed(r: ResolvedCall, env: CallEnv): Promise<boolean> {
    const { confirm, confirmationTimeoutMs } = this.core;
    if (!confirm || r.spec.accessClass !== 'trade') return true;
    const request = {
      controlId: r.call.controlId,
      target: r.entry.target,
      args: r.args,
      clientName: env.attachment.clientName,
    };
    const window = Math.min(confirmationTimeoutMs, env.deadline.remaining());
    return askConfirmation(confirm, request, window, requestStop(env.cancel, env.deadline));
  }
}
