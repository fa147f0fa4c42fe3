/**
 * Requests in flight (SPEC §9): each is bound to the socket it was sent on, and
 * only that socket may answer or report progress. A lost answer resolves per
 * {@link lostOutcome}; nothing is ever re-sent.
 */
import type { BrowserFrame, Operation, RelayLimits, RequestFrame } from '../../../protocol/index.js';
import { boundAnswer } from './answerLimits.js';
import type { RelayServerConnection } from '../../relay/relayServerConnection.js';
import { browserFrameShape } from '../../relay/serverFrames.js';
import type { HubOutcome, HubRequestOptions } from '../hubPort.js';
import { cancelledOutcome, containsMutation, isMutation, lostOutcome, type LossCause } from './lostOutcomes.js';
import type { SessionRecord } from '../hubSessions.js';

const FINISHED_KEPT = 1024;

interface Pending {
  readonly id: string;
  readonly session: SessionRecord;
  readonly conn: RelayServerConnection;
  readonly op: Operation;
  /** The asking front's limits, which its answer is held to. */
  readonly limits: RelayLimits;
  readonly dispatchedAt: number;
  readonly timer: NodeJS.Timeout;
  readonly onProgress?: HubRequestOptions['onProgress'];
  readonly resolve: (outcome: HubOutcome) => void;
  readonly unlisten: () => void;
}

/** How a frame naming a request id was taken. */
export type AnswerVerdict = 'accepted' | 'late' | 'foreign';

/** What a request frame carries besides its id. */
export type RequestBody = Omit<RequestFrame, 't' | 'id'>;

/** The requests of one hub. */
export class RequestTable {
  private readonly pending = new Map<string, Pending>();
  /** Finished request id → the socket that owned it, so its late answer is dropped, not foreign. */
  private readonly finished = new Map<string, RelayServerConnection>();
  private counter = 0;

  constructor(
    private readonly now: () => number,
    /** Extra time after the deadline for the page's own deadline answer to arrive first. */
    private readonly deadlineGraceMs: number,
  ) {}

  /** Sends one request on the session's socket and resolves with its outcome. */
  dispatch(
    session: SessionRecord,
    conn: RelayServerConnection,
    body: RequestBody,
    options: HubRequestOptions,
  ): Promise<HubOutcome> {
    const id = `r${(++this.counter).toString(36)}`;
    return new Promise((resolve) => {
      const onAbort = () => this.cancel(id);
      const timer = setTimeout(() => this.expire(id), body.deadlineMs + this.deadlineGraceMs);
      timer.unref();
      const entry: Pending = {
        id,
        session,
        conn,
        op: body.op,
        limits: body.limits,
        dispatchedAt: this.now(),
        timer,
        onProgress: options.onProgress,
        resolve,
        unlisten: () => options.signal?.removeEventListener('abort', onAbort),
      };
      this.pending.set(id, entry);
      options.signal?.addEventListener('abort', onAbort, { once: true });
      conn.send({ t: 'request', id, ...body });
    });
  }

  /** A `response` frame from `conn`. */
  answer(conn: RelayServerConnection, frame: Extract<BrowserFrame, { t: 'response' }>): AnswerVerdict {
    const verdict = this.owner(conn, frame.id);
    if (verdict !== 'accepted') return verdict;
    const { outcome, environment } = frame;
    const p = this.pending.get(frame.id)!;
    const answered: HubOutcome = outcome.ok
      ? { ok: true, data: outcome.data, ...(outcome.image ? { image: outcome.image } : {}), environment }
      : { ok: false, error: outcome.error, environment };
    const bounded = boundAnswer(answered, {
      op: p.op,
      limits: p.limits,
      mutates: (controlId) => isMutation(controlId, p.session.vocabulary.document),
      dispatchedAt: p.dispatchedAt,
      now: this.now(),
      frameShape: browserFrameShape(frame),
    });
    this.finish(frame.id, bounded);
    return 'accepted';
  }

  /** A `progress` frame from `conn`. */
  progress(conn: RelayServerConnection, frame: Extract<BrowserFrame, { t: 'progress' }>): AnswerVerdict {
    const verdict = this.owner(conn, frame.id);
    if (verdict === 'accepted') this.pending.get(frame.id)?.onProgress?.(frame.progress, frame.total);
    return verdict;
  }

  /** Resolves every request in flight on `conn` (or of `session`) as lost. */
  lose(match: { conn?: RelayServerConnection; session?: SessionRecord }, cause: LossCause): void {
    for (const p of [...this.pending.values()]) {
      if ((match.conn && p.conn === match.conn) || (match.session && p.session === match.session)) this.lost(p, cause);
    }
  }

  /** Resolves every request in flight as lost. */
  loseAll(cause: LossCause): void {
    for (const p of [...this.pending.values()]) this.lost(p, cause);
  }

  /** Requests in flight. */
  get size(): number {
    return this.pending.size;
  }

  private owner(conn: RelayServerConnection, id: string): AnswerVerdict {
    const p = this.pending.get(id);
    if (p) return p.conn === conn ? 'accepted' : 'foreign';
    return this.finished.get(id) === conn ? 'late' : 'foreign';
  }

  private lost(p: Pending, cause: LossCause): void {
    const environment = p.session.info.environment ?? null;
    this.finish(
      p.id,
      lostOutcome({
        op: p.op,
        mutates: (controlId) => isMutation(controlId, p.session.vocabulary.document),
        cause,
        dispatchedAt: p.dispatchedAt,
        now: this.now(),
        environment,
      }),
    );
  }

  private expire(id: string): void {
    const p = this.pending.get(id);
    if (!p) return;
    p.conn.send({ t: 'cancel', id });
    this.lost(p, 'deadline');
  }

  /** The MCP client cancelled: a read is abandoned at once, a mutation runs to its outcome. */
  private cancel(id: string): void {
    const p = this.pending.get(id);
    if (!p) return;
    p.conn.send({ t: 'cancel', id });
    if (!containsMutation(p.op, p.session.vocabulary.document))
      this.finish(id, cancelledOutcome(p.session.info.environment ?? null));
  }

  private finish(id: string, outcome: HubOutcome): void {
    const p = this.pending.get(id);
    if (!p) return;
    this.pending.delete(id);
    clearTimeout(p.timer);
    p.unlisten();
    this.finished.set(id, p.conn);
    if (this.finished.size > FINISHED_KEPT) this.finished.delete(this.finished.keys().next().value as string);
    p.resolve(outcome);
  }
}
