/**
 * The page side of the worker contract: runs the worker's requests through the
 * host SDK on the main thread, keeping one AbortController per request so a
 * `cancel` from the relay reaches the SDK's signal.
 */
import type { TerminalHost } from '../sdk/types.js';
import type { PagePort } from './workerApi.js';

/** Where the page port sends what it hears from the worker. */
export type PagePortCallbacks = Pick<PagePort, 'status' | 'grantProposed' | 'attachmentEnded'>;

/** Builds the page port for `host`; `reportProgress` forwards a request's progress to the worker. */
export function createPagePort(
  host: Pick<TerminalHost, 'handle' | 'catalog'>,
  reportProgress: (requestId: string, progress: number, total?: number) => void,
  callbacks: PagePortCallbacks,
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
  };
}
