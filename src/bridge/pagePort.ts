/**
 * The page side of the worker contract: runs the worker's requests through the
 * host SDK on the main thread, keeping one AbortController per request so a
 * `cancel` from the relay reaches the SDK's signal; starts and stops binding
 * sources whose events go to the worker in batches (`eventBatch.ts`); and
 * hands a capture's ImageBitmap to the worker as a transfer, never a copy.
 */
import { transfer } from 'comlink';
import type { ErrorObject } from '../protocol/index.js';
import type { TerminalHost } from '../sdk/types.js';
import type { EventBatcher } from './eventBatch.js';
import type { PagePort } from './workerApi.js';

/** Where the page port sends what it hears from the worker. */
export type PagePortCallbacks = Pick<PagePort, 'status' | 'grantProposed' | 'attachmentEnded'>;

/** Spelled out, not `makeError`: the page entry must not pull in the protocol's schemas. */
const NO_EVENT_PORT: ErrorObject = {
  code: 'internal_error',
  message:
    'This page started the bridge without an event port, so subscriptions cannot run; this is a defect of the bridge.',
  status_code: null,
  broker_code: null,
  broker_message: null,
  request_id: null,
  validation_errors: [],
  retry: 'never',
  auth_url: null,
  details: null,
};

/** The host calls the page port uses. */
export type PortHost = Pick<TerminalHost, 'handle' | 'catalog' | 'startBinding' | 'stopBinding' | 'capture'>;

/**
 * Builds the page port for `host`; `reportProgress` forwards a request's
 * progress to the worker, `events` carries binding events (without it a
 * binding cannot start).
 */
export function createPagePort(
  host: PortHost,
  reportProgress: (requestId: string, progress: number, total?: number) => void,
  callbacks: PagePortCallbacks,
  events?: EventBatcher,
): PagePort {
  const controllers = new Map<string, AbortController>();
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
      if (!events) return { ok: false, error: NO_EVENT_PORT };
      return host.startBinding(request, events.sink(handle));
    },
    stopBinding: (subscriptionId, bindingId) => host.stopBinding(subscriptionId, bindingId),
    async capture(target, options) {
      const captured = await host.capture(target, options);
      return captured.ok ? transfer(captured, [captured.bitmap]) : captured;
    },
  };
}
