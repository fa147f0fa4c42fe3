/**
 * One MCP connection's attachment to the hub (SPEC §2): attached once the
 * client finishes initialization, detached exactly once when the connection
 * closes, with an attachment-unique generator of operation ids.
 */
import type { AttachmentHandle, AttachmentInfo, HubPort } from '../../hub/hubPort.js';
import type { Logger } from '../../log.js';

/** Longest client name the hub records. */
export const MAX_CLIENT_NAME = 128;

/** One connection's attachment. */
export interface Attachment {
  /** The attachment id once attached, else null. */
  readonly id: string | null;
  /** Resolves with the handle, attaching first when initialization has not done so yet. */
  ready(): Promise<AttachmentHandle>;
  /** Detaches once; later calls and a late attach resolve to a detach too. */
  end(): Promise<void>;
  /** The next generated operation id, e.g. `gen-3f9a2c1b-7` (attachment-unique). */
  nextOperationId(): string;
}

/** The client name a hub records: the client's own name, bounded. */
export function boundedClientName(name: string | undefined): string {
  const trimmed = (name ?? '').trim();
  return (trimmed === '' ? 'unknown-client' : trimmed).slice(0, MAX_CLIENT_NAME);
}

/**
 * Creates the attachment of one connection. `clientName` is read lazily: it is
 * known only after the client's initialize request.
 */
export function createAttachment(hub: HubPort, describe: () => AttachmentInfo, logger: Logger): Attachment {
  let pending: Promise<AttachmentHandle> | null = null;
  let handle: AttachmentHandle | null = null;
  let ended = false;
  let counter = 0;

  const ready = (): Promise<AttachmentHandle> => {
    if (ended) return Promise.reject(new Error('This MCP connection has ended; reconnect the client.'));
    pending ??= hub.attach(describe()).then(
      async (attached) => {
        handle = attached;
        logger.info('attached', { attachmentId: attached.attachmentId });
        // The connection may have closed while the hub was attaching.
        if (ended) await hub.detach(attached.attachmentId);
        return attached;
      },
      (error: unknown) => {
        // A failed attach is retried by the next request rather than cached.
        pending = null;
        logger.error('attach failed');
        throw error;
      },
    );
    return pending;
  };

  const end = async (): Promise<void> => {
    if (ended) return;
    ended = true;
    if (handle) {
      logger.info('detached', { attachmentId: handle.attachmentId });
      await hub.detach(handle.attachmentId);
    }
  };

  return {
    get id() {
      return handle?.attachmentId ?? null;
    },
    ready,
    end,
    nextOperationId() {
      if (!handle) throw new Error('No attachment yet: await ready() before generating an operation id.');
      counter += 1;
      return `gen-${handle.attachmentId.slice(0, 8)}-${counter}`;
    },
  };
}
