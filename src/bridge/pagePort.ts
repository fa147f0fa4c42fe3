/**
 * The page side of the worker contract: runs the worker's requests through the
 * host SDK on the main thread, keeping one AbortController per request so a
 * `cancel` from the relay reaches the SDK's signal; starts and stops binding
 * sources whose events go to the worker in batches (`eventBatch.ts`); and
 * hands a capture's ImageBitmap to the worker as a transfer, never a copy.
 */
import { transfer } from 'comlink';
import type { ErrorObject, Target } from '../protocol/index.js';
import type { TerminalHost } from '../sdk/types.js';
import type { EventBatcher } from './eventBatch.js';
import type { BindingEvent, BindingRequest, BindingStartResult, CaptureResult } from './observeTypes.js';
import type { PagePort } from './workerApi.js';

/** Where the page port sends what it hears from the worker. */
export type PagePortCallbacks = Pick<PagePort, 'status' | 'grantProposed' | 'attachmentEnded'>;

/** The host SDK's binding, capture and target calls. */
export interface ObservingHost {
  startBinding(request: BindingRequest, sink: (event: BindingEvent) => void): Promise<BindingStartResult>;
  stopBinding(subscriptionId: string, bindingId: string): void;
  capture(target: Target, options: { maxPixels: number }): Promise<CaptureResult>;
  onTargetUnregistered(listener: (target: Target) => void): () => void;
}

/** The host's observing calls, when this SDK build has them. */
export function observingHost(host: object): ObservingHost | null {
  const candidate = host as Partial<Record<keyof ObservingHost, unknown>>;
  const complete = (['startBinding', 'stopBinding', 'capture', 'onTargetUnregistered'] as const).every(
    (name) => typeof candidate[name] === 'function',
  );
  return complete ? (host as ObservingHost) : null;
}

/** Spelled out, not `makeError`: the page entry must not pull in the protocol's schemas. */
const NOT_SERVED: ErrorObject = {
  code: 'internal_error',
  message: 'This terminal’s host SDK does not serve subscriptions or snapshots; update the SDK.',
  status_code: null,
  broker_code: null,
  broker_message: null,
  request_id: null,
  validation_errors: [],
  retry: 'never',
  auth_url: null,
  details: null,
};
const notServed = () => ({ ok: false as const, error: NOT_SERVED });

/** Builds the page port for `host`; `reportProgress` forwards a request's progress to the worker. */
export function createPagePort(
  host: Pick<TerminalHost, 'handle' | 'catalog'>,
  reportProgress: (requestId: string, progress: number, total?: number) => void,
  callbacks: PagePortCallbacks,
  events?: EventBatcher,
): PagePort {
  const controllers = new Map<string, AbortController>();
  const observing = observingHost(host);
  return {
    async handle(request) {
      const controller = new AbortController();
      controllers.set(request.id, controller);
      try {
        return await host.handle(request, {
          signal: controller.signal,
          progress: (progress, total) => reportProgress(request.id, progress, total),
        });
      } finally {
        controllers.delete(request.id);
      }
    },
    cancel(requestId) {
      controllers.get(requestId)?.abort(new Error('The MCP client cancelled this request.'));
    },
    catalog: () => host.catalog(),
    status: (status) => callbacks.status(status),
    grantProposed: (grant) => callbacks.grantProposed(grant),
    attachmentEnded: (attachmentId) => callbacks.attachmentEnded(attachmentId),
    async startBinding(request, handle) {
      if (!observing || !events) return notServed();
      return observing.startBinding(request, events.sink(handle));
    },
    stopBinding(subscriptionId, bindingId) {
      observing?.stopBinding(subscriptionId, bindingId);
    },
    async capture(target, options) {
      if (!observing) return notServed();
      const captured = await observing.capture(target, options);
      return captured.ok ? transfer(captured, [captured.bitmap]) : captured;
    },
  };
}
