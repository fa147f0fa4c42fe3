/**
 * The receiving side of a forwarded request (SPEC §14): this node's MCP
 * client asked for a session whose socket another node holds. The request goes
 * to that node's inbox and its answer comes back to ours. Nothing is ever
 * re-sent: when the owner goes away (nobody listens on its inbox any more),
 * when Redis goes away here, or when the deadline passes, the request
 * resolves at once by the lost-answer rules — a call that may mutate is
 * `uncertain_execution`, a read `transport_error`.
 */
import type { Environment, Operation } from '../../protocol/index.js';
import type { InboxMessage } from '../../protocol/wire/clusterBus.js';
import type { HubOutcome, HubRequestOptions } from '../hub/hubPort.js';
import { lostOutcome, type LossCause } from '../hub/rules/lostOutcomes.js';
import type { ClusterBus, Delivery } from './clusterBus.js';

type RequestMessage = Extract<InboxMessage, { t: 'request' }>;

/** What a forwarded request resolved to. */
export type Forwarded =
  | { kind: 'outcome'; outcome: HubOutcome }
  /** Nothing reached a tab: the owner does not hold the session, or is gone. Safe to route again. */
  | { kind: 'notSent' };

interface Pending {
  readonly node: string;
  readonly op: Operation;
  readonly reads: ReadonlySet<string>;
  readonly environment: Environment | null;
  readonly dispatchedAt: number;
  readonly timer: NodeJS.Timeout;
  readonly onProgress?: HubRequestOptions['onProgress'];
  readonly resolve: (result: Forwarded) => void;
  readonly unlisten: () => void;
}

/** Timings; tests shorten them. */
export interface ForwardTiming {
  /** How often owners of requests in flight are checked for being gone. */
  watchMs: number;
  /** Time past the request's deadline (and the owner's own grace) before it is given up here. */
  deadlineGraceMs: number;
}

/** The requests this node forwarded and waits on. */
export class Forwarder {
  private readonly pending = new Map<string, Pending>();
  private counter = 0;
  private watch: NodeJS.Timeout | null = null;

  constructor(
    private readonly bus: ClusterBus,
    private readonly timing: ForwardTiming,
    private readonly now: () => number = Date.now,
  ) {}

  /** Requests in flight to other nodes. */
  get size(): number {
    return this.pending.size;
  }

  /**
   * Sends `request` (its `id` and `from` are filled in) to `node` and resolves
   * with its answer. `reads` are the control ids the session knows as reads:
   * the rest count as mutations if the answer is lost.
   */
  forward(
    node: string,
    request: Omit<RequestMessage, 'id' | 'from'>,
    session: { reads: ReadonlySet<string>; environment: Environment | null },
    options: HubRequestOptions,
  ): Promise<Forwarded> {
    const id = `${this.bus.nodeId}.${(++this.counter).toString(36)}`;
    return new Promise((resolve) => {
      const onAbort = () => void this.bus.send(node, { t: 'cancel', id });
      const timer = setTimeout(() => this.lose(id, 'deadline'), request.deadlineMs + this.timing.deadlineGraceMs);
      timer.unref();
      const entry: Pending = {
        node,
        op: request.op,
        reads: session.reads,
        environment: session.environment,
        dispatchedAt: this.now(),
        timer,
        onProgress: options.onProgress,
        resolve,
        unlisten: () => options.signal?.removeEventListener('abort', onAbort),
      };
      this.pending.set(id, entry);
      options.signal?.addEventListener('abort', onAbort, { once: true });
      this.startWatching();
      void this.bus.send(node, { ...request, t: 'request', id, from: this.bus.nodeId }).then((d) => this.sent(id, d));
    });
  }

  /** An answer, progress or refusal from an owner. */
  receive(message: Extract<InboxMessage, { t: 'outcome' | 'progress' | 'notHere' }>): void {
    const p = this.pending.get(message.id);
    if (!p) return;
    if (message.t === 'progress') return p.onProgress?.(message.progress, message.total);
    this.finish(
      message.id,
      message.t === 'notHere' ? { kind: 'notSent' } : { kind: 'outcome', outcome: message.outcome },
    );
  }

  /** Redis went away here: no answer can arrive, so every request in flight is lost. */
  loseAll(cause: LossCause): void {
    for (const id of [...this.pending.keys()]) this.lose(id, cause);
  }

  /** Stops watching (requests still in flight resolve as lost). */
  close(): void {
    this.loseAll('shutdown');
    if (this.watch) clearInterval(this.watch);
    this.watch = null;
  }

  private sent(id: string, delivery: Delivery): void {
    if (delivery === 'delivered') return;
    // Nobody received it: nothing ran, and routing again is safe.
    if (delivery === 'absent' || delivery === 'unsent') return this.finish(id, { kind: 'notSent' });
    this.lose(id, 'store');
  }

  private startWatching(): void {
    if (this.watch) return;
    this.watch = setInterval(() => void this.check(), this.timing.watchMs);
    this.watch.unref();
  }

  private async check(): Promise<void> {
    if (this.pending.size === 0) {
      if (this.watch) clearInterval(this.watch);
      this.watch = null;
      return;
    }
    const nodes = [...new Set([...this.pending.values()].map((p) => p.node))];
    const live = await this.bus.listening(nodes);
    if (live === null) return;
    for (const [id, p] of [...this.pending]) if (!live.has(p.node)) this.lose(id, 'node');
  }

  private lose(id: string, cause: LossCause): void {
    const p = this.pending.get(id);
    if (!p) return;
    const outcome = lostOutcome({
      op: p.op,
      mutates: (controlId) => !p.reads.has(controlId),
      cause,
      dispatchedAt: p.dispatchedAt,
      now: this.now(),
      environment: p.environment,
    });
    this.finish(id, { kind: 'outcome', outcome });
  }

  private finish(id: string, result: Forwarded): void {
    const p = this.pending.get(id);
    if (!p) return;
    this.pending.delete(id);
    clearTimeout(p.timer);
    p.unlisten();
    p.resolve(result);
  }
}
