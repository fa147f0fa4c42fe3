/**
 * Concurrent twins (SPEC §5): a call with the same key (attachment, session,
 * caller operation id) and the same bytes as one still running waits for the
 * first's outcome and returns it, whatever it is (a definite refusal such as
 * `rate_limited` included); only a reuse after the first answered makes a new
 * attempt. The page's dispatcher keeps the same rule while a call runs there;
 * the hub keeps it until the answer is back here, so a twin that reaches the
 * page just after the first finished there is never a second attempt.
 * Only calls that may change state are joined: a read's cancellation belongs
 * to its own caller.
 */
import { canonicalJson, type Operation, type RelayCall } from '../../../protocol/index.js';
import type { HubOutcome } from '../hubPort.js';

interface Running {
  readonly fingerprint: string;
  readonly outcome: Promise<HubOutcome>;
}

/** Byte-equivalence as SPEC §5 defines it: canonical JSON of what was submitted. */
function fingerprintOf(call: RelayCall): string {
  return canonicalJson([call.controlId, call.target, call.args, call.expectedRevisions ?? null]);
}

/** The calls in flight that a twin may join. */
export class TwinCalls {
  private readonly running = new Map<string, Running>();

  /**
   * Runs `send`, or joins the identical call already running under the same
   * key. `mutates` says whether the call may change state.
   */
  run(
    attachmentId: string,
    sessionId: string,
    op: Operation,
    mutates: (controlId: string) => boolean,
    send: () => Promise<HubOutcome>,
  ): Promise<HubOutcome> {
    if (op.kind !== 'call' || !op.call.callerOperationId || !mutates(op.call.controlId)) return send();
    const key = JSON.stringify([attachmentId, sessionId, op.call.operationId]);
    const fingerprint = fingerprintOf(op.call);
    const first = this.running.get(key);
    // A different request under the same id goes to the page, whose ledger answers operation_id_conflict.
    if (first && first.fingerprint === fingerprint) return first.outcome;
    if (first) return send();
    const outcome = send();
    this.running.set(key, { fingerprint, outcome });
    void outcome.finally(() => {
      if (this.running.get(key)?.outcome === outcome) this.running.delete(key);
    });
    return outcome;
  }

  /** Calls in flight that a twin could join. */
  get size(): number {
    return this.running.size;
  }
}
