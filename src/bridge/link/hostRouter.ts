/**
 * Routes a relay request of the page's session: subscribe and snapshot are
 * served in the worker itself (SPEC §7, §8); context, list, call and batch go
 * to the host SDK on the main thread over the host-call link (from the page's
 * worker, or from the extension's service worker) and run in the SDK's
 * dispatcher. A call's cancellation and progress travel with it, as its hooks.
 */
import { makeError, type Environment, type RequestFrame } from '../../protocol/index.js';
import type { SessionRequest } from '../../sdk/types.js';
import type { HandlerHooks, HandlerResult, RequestHandler } from '../relay/clientSessions.js';

/** A call's hooks as they travel with it on the link: the caller's abort signal and progress sink. */
export interface CallHooks {
  signal?: AbortSignal;
  /** Where the caller offers it, the way to hear of the abort without reading (and so making) `signal`. */
  onAbort?(listener: () => void): void;
  progress?(progress: number, total?: number): void;
}

/** The host calls the router reaches: the bridge's end of the host-call link. */
export interface HostCalls {
  /** Runs one request on the page; `hooks` travel with it (cancellation, progress). */
  handle(request: SessionRequest, hooks?: CallHooks): Promise<HandlerResult['outcome']>;
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

/** The handler of one page session's requests; `environment` is the session's current execution environment. */
export function createHostRouter(
  host: HostCalls,
  environment: () => Environment | null,
  inWorker: WorkerServed = async () => null,
): RequestHandler {
  return async (request, hooks) => {
    const { op } = request;
    if (op.kind === 'subscribe' || op.kind === 'snapshot') {
      return { environment: environment(), outcome: (await inWorker(request, hooks)) ?? notServed() };
    }
    try {
      return { environment: environment(), outcome: await host.handle(toSessionRequest(request, op), hooks) };
    } catch {
      const error = makeError('internal_error', 'The page did not answer this request; reload the terminal tab.');
      return { environment: environment(), outcome: { ok: false, error } };
    }
  };
}
