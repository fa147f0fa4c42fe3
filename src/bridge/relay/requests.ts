/**
 * Requests in flight on the relay (SPEC §9). A response goes only to the socket
 * that carried the request: when that socket dies its requests are dropped and
 * their signals aborted (the server reports them to the MCP client, as
 * `uncertain_execution` for a dispatched mutation), and nothing is replayed or
 * answered on a later socket.
 */
import { makeError, type RequestFrame } from '../../protocol/index.js';
import { encodeResponse } from './clientFrames.js';
import type { HandlerHooks, HandlerResult, RequestHandler } from './clientSessions.js';
import { LazyAbort } from './lazyAbort.js';

/** The socket a request arrived on, as the table sees it. */
export interface RequestLink {
  /** False once the socket is gone. */
  readonly live: boolean;
  send(text: string): void;
}

/** A value the progress frame's schema accepts. */
function isCount(value: number | undefined): value is number {
  return typeof value === 'number' && Number.isFinite(value) && value >= 0;
}

/**
 * One request in flight and the hooks its handler gets. Its abort signal is
 * made only when a handler reads it: the host SDK and the host-call link
 * register with `onAbort` instead ({@link LazyAbort}).
 */
class InFlight extends LazyAbort implements HandlerHooks {
  constructor(
    readonly link: RequestLink,
    readonly progress: HandlerHooks['progress'],
  ) {
    super();
  }
}

/** Requests being handled, by relay request id. */
export class InflightRequests {
  private readonly table = new Map<string, InFlight>();

  /** How many requests are in flight. */
  get size(): number {
    return this.table.size;
  }

  /** Runs one request and answers it on its own socket, if that socket still lives. */
  async run(link: RequestLink, request: RequestFrame, handler: RequestHandler): Promise<void> {
    // A repeated id while the first runs is a server defect; one answer per id.
    if (this.table.has(request.id)) return;
    const progress = (value: number, total?: number): void => {
      if (this.table.get(request.id) !== entry || !link.live || !isCount(value)) return;
      link.send(
        JSON.stringify({ t: 'progress', id: request.id, progress: value, total: isCount(total) ? total : undefined }),
      );
    };
    const entry = new InFlight(link, progress);
    this.table.set(request.id, entry);
    const result = await this.settle(handler, request, entry);
    if (this.table.get(request.id) !== entry) return;
    this.table.delete(request.id);
    if (link.live) link.send(encodeResponse(request, result.environment, result.outcome));
  }

  /** `cancel`: aborts that request's signal (a dispatched mutation still runs to its outcome). */
  cancel(id: string): void {
    this.table.get(id)?.abort(new Error('The MCP client cancelled this request.'));
  }

  /** The socket is gone: its requests are dropped and their signals aborted. */
  abandon(link: RequestLink): void {
    for (const [id, entry] of this.table) {
      if (entry.link !== link) continue;
      this.table.delete(id);
      entry.abort(new Error('The relay connection closed.'));
    }
  }

  private async settle(handler: RequestHandler, request: RequestFrame, hooks: HandlerHooks): Promise<HandlerResult> {
    try {
      return await handler(request, hooks);
    } catch {
      const error = makeError(
        'internal_error',
        'The page failed while handling this request; this is a defect of the bridge or host SDK.',
      );
      return { environment: null, outcome: { ok: false, error } };
    }
  }
}
