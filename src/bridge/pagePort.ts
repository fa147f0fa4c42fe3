/**
 * The page side of the worker's comlink contract (requests travel on the call
 * port instead, see `callServer.ts`): starts and stops binding sources whose
 * events go to the worker in batches (`eventBatch.ts`), and hands a capture's
 * ImageBitmap to the worker as a transfer, never a copy.
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
export type PortHost = Pick<TerminalHost, 'catalog' | 'startBinding' | 'stopBinding' | 'capture'>;

/** Builds the page port for `host`; `events` carries binding events (without it a binding cannot start). */
export function createPagePort(host: PortHost, callbacks: PagePortCallbacks, events?: EventBatcher): PagePort {
  return {
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
