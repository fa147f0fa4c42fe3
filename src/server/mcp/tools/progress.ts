/**
 * Forwards the page's progress as MCP `notifications/progress` (SPEC §3) when
 * the request asked for it with `_meta.progressToken`.
 */
import type { Notification } from '@modelcontextprotocol/server';
import type { Logger } from '../../log.js';

/** What a progress forwarder needs from the request. */
export interface ProgressSource {
  progressToken: string | number | undefined;
  sendNotification: (notification: Notification) => Promise<void>;
}

/** A progress callback for the hub, or undefined when the client asked for none. */
export function progressForwarder(
  source: ProgressSource,
  logger: Logger,
): ((progress: number, total?: number) => void) | undefined {
  const { progressToken } = source;
  if (progressToken === undefined) return undefined;
  return (progress, total) => {
    const params = total === undefined ? { progressToken, progress } : { progressToken, progress, total };
    source.sendNotification({ method: 'notifications/progress', params }).catch(() => {
      // The connection closed mid-request; the result (if any) tells the rest.
      logger.debug('progress not delivered');
    });
  };
}
