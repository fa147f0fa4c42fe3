/**
 * The worker's end of the call port (see `callPort.ts`): the host router's
 * `HostCalls` over plain messages. Each request's scope is defined once per
 * attachment; each call posts only its id, key, deadline and operation, and
 * its answer (or progress) comes back by id. When the port closes, every
 * pending call settles as unanswered.
 */
import { makeError } from '../protocol/index.js';
import type { SessionOutcome, SessionRequest } from '../sdk/types.js';
import { scopeOf, type CallPortAnswer, type CallPortEnd, type CallPortRequest } from './callPort.js';
import { CallScopes } from './callScopes.js';
import type { HostCalls } from './hostRouter.js';

/** Where a running call's progress goes. */
export type ProgressSink = (requestId: string, progress: number, total?: number) => void;

const UNANSWERED = 'The page did not answer this request; reload the terminal tab.';

/** Reads one answer; anything else is ignored (the port is ours, but still a boundary). */
export function readCallPortAnswer(data: unknown): CallPortAnswer | null {
  if (typeof data !== 'object' || data === null) return null;
  const message = data as Record<string, unknown>;
  if (typeof message['id'] !== 'string') return null;
  if (message['t'] === 'result') {
    const outcome = message['outcome'] as { ok?: unknown } | null | undefined;
    return typeof outcome === 'object' && outcome !== null && typeof outcome.ok === 'boolean'
      ? (message as CallPortAnswer)
      : null;
  }
  if (message['t'] !== 'progress' || typeof message['progress'] !== 'number') return null;
  const total = message['total'];
  return total === undefined || typeof total === 'number' ? (message as CallPortAnswer) : null;
}

/** The host calls of a page reached through its call port. */
export class CallClient implements HostCalls {
  private readonly pending = new Map<string, (outcome: SessionOutcome) => void>();
  private readonly scopes: CallScopes;
  private closed = false;

  constructor(
    private readonly port: CallPortEnd<CallPortRequest>,
    private readonly onProgress: ProgressSink,
  ) {
    this.scopes = new CallScopes({
      define: (key, scope) => this.post({ t: 'scope', key, scope }),
      drop: (key) => this.post({ t: 'drop', key }),
    });
    port.addEventListener('message', this.receive);
    port.start?.();
  }

  handle(request: SessionRequest): Promise<SessionOutcome> {
    if (this.closed || this.pending.has(request.id)) return Promise.resolve(unanswered());
    const key = this.scopes.keyOf(scopeOf(request));
    return new Promise((resolve) => {
      this.pending.set(request.id, resolve);
      const { id, deadlineMs, op } = request;
      if (!this.post({ t: 'call', id, key, deadlineMs, op })) this.settle(id, unanswered());
    });
  }

  cancel(requestId: string): void {
    if (this.pending.has(requestId)) this.post({ t: 'cancel', id: requestId });
  }

  /** The attachment ended: the page forgets its scope. */
  attachmentEnded(attachmentId: string): void {
    this.scopes.forget(attachmentId);
  }

  /** How many calls wait for the page. */
  get waiting(): number {
    return this.pending.size;
  }

  /** Stops listening and settles every pending call as unanswered. */
  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.port.removeEventListener?.('message', this.receive);
    for (const id of [...this.pending.keys()]) this.settle(id, unanswered());
  }

  private readonly receive = (event: { data: unknown }): void => {
    const answer = readCallPortAnswer(event.data);
    if (answer?.t === 'result') this.settle(answer.id, answer.outcome);
    else if (answer && this.pending.has(answer.id)) this.onProgress(answer.id, answer.progress, answer.total);
  };

  private settle(id: string, outcome: SessionOutcome): void {
    const resolve = this.pending.get(id);
    this.pending.delete(id);
    resolve?.(outcome);
  }

  private post(message: CallPortRequest): boolean {
    try {
      this.port.postMessage(message);
      return true;
    } catch {
      // A call whose operation cannot be cloned; relay frames are plain JSON, so a defect.
      return false;
    }
  }
}

function unanswered(): SessionOutcome {
  return { ok: false, error: makeError('internal_error', UNANSWERED) };
}
