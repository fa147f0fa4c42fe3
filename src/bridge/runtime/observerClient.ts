/**
 * The page's end of the bridge worker's observer (SPEC §7, §8): the session's
 * subscribe and snapshot requests go to the worker with their cancellation,
 * their progress and answers come back, and the session's id and attachment
 * notices follow, so the ring buffers, the journal and snapshot encoding stay
 * off the page's main thread.
 */
import { makeError, type RequestFrame } from '../../protocol/index.js';
import type { WorkerObserveMessage } from '../../protocol/wire/observeLink.js';
import type { RelayOutcome } from '../relay/clientFrames.js';
import type { HandlerHooks, SessionStatus } from '../relay/clientSessions.js';
import type { WorkerPost } from './workerClock.js';

const GONE = 'The bridge worker did not answer this request; reload the terminal tab.';

interface Pending {
  resolve(outcome: RelayOutcome | null): void;
  hooks: HandlerHooks;
}

/** The worker's observer, as the page's session router sees it. */
export class ObserverClient {
  private readonly pending = new Map<string, Pending>();
  private next = 0;
  private lastSession = '';

  constructor(private readonly post: WorkerPost) {}

  /** Serves a subscribe or snapshot request in the worker; null when it does not serve that kind. */
  handle(request: RequestFrame, hooks: HandlerHooks): Promise<RelayOutcome | null> {
    const id = `o${++this.next}`;
    return new Promise((resolve) => {
      this.pending.set(id, { resolve, hooks });
      const cancel = (): void => void this.post({ t: 'observeCancel', id });
      hooks.onAbort(cancel);
      if (!this.post({ t: 'observe', id, request }))
        this.settle(id, { ok: false, error: makeError('internal_error', GONE) });
    });
  }

  /** The worker's answer or progress. */
  receive(message: Extract<WorkerObserveMessage, { t: 'observed' | 'observeProgress' }>): void {
    if (message.t === 'observed') return this.settle(message.id, message.outcome);
    this.pending.get(message.id)?.hooks.progress(message.progress, message.total);
  }

  /** The session's id or open state changed (the first call names the kept id). */
  session(status: Pick<SessionStatus, 'sessionId' | 'open'>): void {
    const key = `${status.open}:${status.sessionId ?? ''}`;
    if (key === this.lastSession) return;
    this.lastSession = key;
    this.post({ t: 'session', sessionId: status.sessionId, open: status.open });
  }

  attachmentEnded(attachmentId: string): void {
    this.post({ t: 'attachmentEnded', attachmentId });
  }

  attachmentsListed(attachmentIds: readonly string[]): void {
    this.post({ t: 'attachmentsListed', attachmentIds: [...attachmentIds] });
  }

  /** Stops the worker's observer (subscriptions end with `session-closed`); requests still waiting settle. */
  close(): void {
    this.post({ t: 'closeObserver' });
    for (const id of [...this.pending.keys()]) this.settle(id, { ok: false, error: makeError('internal_error', GONE) });
  }

  private settle(id: string, outcome: RelayOutcome | null): void {
    const entry = this.pending.get(id);
    if (!entry) return;
    this.pending.delete(id);
    entry.resolve(outcome);
  }
}
