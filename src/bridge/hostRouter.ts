/**
 * Routes a relay request of the page's session: subscribe and snapshot are
 * served in the worker itself (SPEC §7, §8); context, list, call and batch go
 * to the host SDK on the main thread (the page's call port, or the extension's
 * tab link) and run in the SDK's dispatcher. Cancellation and progress cross
 * as their own messages.
 */
import { makeError, type Environment, type RequestFrame } from '../protocol/index.js';
import type { SessionRequest } from '../sdk/types.js';
import type { HandlerHooks, HandlerResult, RequestHandler } from './sessions.js';

/** The host calls the router reaches: the call port's client, or the extension's tab client. */
export interface HostCalls {
  handle(request: SessionRequest): Promise<HandlerResult['outcome']>;
  cancel(requestId: string): Promise<void> | void;
}

/** The handler for one page session, plus the sink for its progress reports. */
export interface HostRouter {
  handler: RequestHandler;
  /** Forwards the page's progress of a running request to its relay request. */
  reportProgress(requestId: string, progress: number, total?: number): void;
}

/** Serves the requests the worker answers itself (subscribe, snapshot). */
export type WorkerServed = (request: RequestFrame, hooks: HandlerHooks) => Promise<HandlerResult['outcome'] | null>;

const notServed = (): HandlerResult['outcome'] => ({
  ok: false,
  error: makeError(
    'internal_error',
    'This bridge runtime does not serve that request; this is a defect of the bridge.',
  ),
});

function toSessionRequest(request: RequestFrame, op: SessionRequest['op']): SessionRequest {
  const { id, sessionId, attachment, adapter, limits, deadlineMs } = request;
  // The session is part of the operation ledger's key (SPEC §5).
  return { id, sessionId, attachment, adapter, limits, deadlineMs, op };
}

/** Builds the router; `environment` is the session's current execution environment. */
export function createHostRouter(
  host: HostCalls,
  environment: () => Environment | null,
  inWorker: WorkerServed = async () => null,
): HostRouter {
  const progressSinks = new Map<string, HandlerHooks['progress']>();
  const handler: RequestHandler = async (request, hooks) => {
    const { op } = request;
    if (op.kind === 'subscribe' || op.kind === 'snapshot') {
      return { environment: environment(), outcome: (await inWorker(request, hooks)) ?? notServed() };
    }
    const onAbort = (): void => {
      void Promise.resolve(host.cancel(request.id)).catch(() => undefined);
    };
    hooks.signal.addEventListener('abort', onAbort, { once: true });
    progressSinks.set(request.id, hooks.progress);
    try {
      return { environment: environment(), outcome: await host.handle(toSessionRequest(request, op)) };
    } catch {
      const error = makeError('internal_error', 'The page did not answer this request; reload the terminal tab.');
      return { environment: environment(), outcome: { ok: false, error } };
    } finally {
      progressSinks.delete(request.id);
      hooks.signal.removeEventListener('abort', onAbort);
    }
  };
  return {
    handler,
    reportProgress: (requestId, progress, total) => progressSinks.get(requestId)?.(progress, total),
  };
}
