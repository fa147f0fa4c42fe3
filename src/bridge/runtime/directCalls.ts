/**
 * The session's requests straight into the host SDK on this thread (issue 15
 * item 1): context, list, call and batch run in the SDK's dispatcher with
 * every check it makes, and their cancellation and progress go with them. No
 * link in between: nothing crosses a thread or a trust boundary here (the
 * request was parsed at the page's WebSocket, the answer is checked in the
 * response frame it goes into), so the host-call link's envelopes, scopes
 * and pending table would be per-call work for nothing.
 */
import type { TerminalHost } from '../../sdk/types.js';
import type { HostCalls } from '../link/hostRouter.js';
import { pageDefect } from '../page/pageError.js';

const FAILED = 'The page failed while handling this request; this is a defect of the host SDK.';

/** The router's host calls, answered by `host` on this thread. */
export function directCalls(host: Pick<TerminalHost, 'handle'>): HostCalls {
  return {
    async handle(request, hooks = {}) {
      try {
        // As they are: the SDK listens with `onAbort`, so the caller's signal is never made.
        return await host.handle(request, hooks);
      } catch {
        return { ok: false, error: pageDefect(FAILED) };
      }
    },
  };
}
