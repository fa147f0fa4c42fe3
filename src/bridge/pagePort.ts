/**
 * The page side of the worker's comlink contract (requests travel on the call
 * port instead, see `callServer.ts`): starts and stops binding sources whose
 * events go to the worker in batches (`eventBatch.ts`), and hands a capture's
 * ImageBitmap to the worker as a transfer, never a copy.
 */
import { transfer } from 'comlink';
import type { TerminalHost } from '../sdk/types.js';
import type { EventBatcher } from './eventBatch.js';
import type { PagePort } from './workerApi.js';
import { pageDefect } from './pageError.js';

/** Where the page port sends what it hears from the worker. */
export type PagePortCallbacks = Pick<PagePort, 'status' | 'grantProposed' | 'pairLink' | 'attachmentEnded'>;

const NO_EVENT_PORT = pageDefect(
  'This page started the bridge without an event port, so subscriptions cannot run; this is a defect of the bridge.',
);

/** The host calls the page port uses. */
export type PortHost = Pick<TerminalHost, 'catalog' | 'startBinding' | 'stopBinding' | 'capture'>;

/** Builds the page port for `host`; `events` carries binding events (without it a binding cannot start). */
export function createPagePort(host: PortHost, callbacks: PagePortCallbacks, events?: EventBatcher): PagePort {
  return {
    catalog: () => host.catalog(),
    status: (status) => callbacks.status(status),
    grantProposed: (grant) => callbacks.grantProposed(grant),
    pairLink: (result) => callbacks.pairLink(result),
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
