/**
 * A front's requests in flight on its link to the hub (SPEC §5, §9). Each
 * resolves exactly once: with the hub's outcome, or, when the link drops or
 * the hub stays silent past the deadline, as lost: a read is
 * `transport_error`, a call that may mutate is `uncertain_execution` with a
 * receipt. Nothing is ever re-sent.
 */
import type { Environment, Operation } from '../../protocol/index.js';
import type { HubOutcome, HubRequestOptions } from '../hub/hubPort.js';
import { lostOutcome, type LossCause } from '../hub/rules/lostOutcomes.js';

interface Pending {
  readonly op: Operation;
  readonly sentAt: number;
  readonly timer: NodeJS.Timeout;
  readonly onProgress?: HubRequestOptions['onProgress'];
  readonly resolve: (outcome: HubOutcome) => void;
  readonly unlisten: () => void;
  /** Set when the hub took the request: the controls its session knows as reads. */
  accepted: { reads: readonly string[]; environment: Environment | null } | null;
}

/** The requests of one link. */
export class RemoteRequests {
  private readonly pending = new Map<string, Pending>();
  private counter = 0;

  constructor(
    /** Sends a `cancel` for request `id` on the link. */
    private readonly cancel: (id: string) => void,
    private readonly now: () => number,
    /** Time past a request's deadline before the front stops waiting for the hub. */
    private readonly guardMs: number,
  ) {}

  /** Registers one request, sends it with `send(id)`, and resolves with its outcome. */
  dispatch(op: Operation, options: HubRequestOptions, send: (id: string) => void): Promise<HubOutcome> {
    const id = `q${(++this.counter).toString(36)}`;
    return new Promise((resolve) => {
      const onAbort = () => this.cancel(id);
      const timer = setTimeout(() => this.expire(id), options.deadlineMs + this.guardMs);
      timer.unref();
      this.pending.set(id, {
        op,
        sentAt: this.now(),
        timer,
        onProgress: options.onProgress,
        resolve,
        unlisten: () => options.signal?.removeEventListener('abort', onAbort),
        accepted: null,
      });
      options.signal?.addEventListener('abort', onAbort, { once: true });
      send(id);
    });
  }

  /** The hub took request `id`; false when it is not ours. */
  accepted(id: string, reads: readonly string[], environment: Environment | null): boolean {
    const p = this.pending.get(id);
    if (p) p.accepted = { reads, environment };
    return p !== undefined;
  }

  /** Progress of request `id`; false when it is not in flight (a late frame is harmless). */
  progress(id: string, progress: number, total: number | undefined): boolean {
    const p = this.pending.get(id);
    p?.onProgress?.(progress, total);
    return p !== undefined;
  }

  /** The hub's outcome of request `id`. */
  finish(id: string, outcome: HubOutcome): void {
    const p = this.pending.get(id);
    if (!p) return;
    this.pending.delete(id);
    clearTimeout(p.timer);
    p.unlisten();
    p.resolve(outcome);
  }

  /** The link dropped: everything in flight resolves as lost, never re-sent. */
  loseAll(cause: LossCause): void {
    for (const id of [...this.pending.keys()]) this.lose(id, cause);
  }

  /** Requests in flight. */
  get size(): number {
    return this.pending.size;
  }

  private expire(id: string): void {
    if (!this.pending.has(id)) return;
    this.cancel(id);
    this.lose(id, 'deadline');
  }

  /** Request `id` is lost (never answered), resolving per the loss rules. */
  lose(id: string, cause: LossCause): void {
    const p = this.pending.get(id);
    if (!p) return;
    // Without the hub's word, any call may have been dispatched and may mutate.
    const reads = new Set(p.accepted?.reads ?? []);
    const outcome = lostOutcome({
      op: p.op,
      mutates: (controlId) => !reads.has(controlId),
      cause,
      dispatchedAt: p.sentAt,
      now: this.now(),
      environment: p.accepted?.environment ?? null,
    });
    this.finish(id, outcome);
  }
}
