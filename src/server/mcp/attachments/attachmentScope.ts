/**
 * Which attachment a request runs under (SPEC §2). A connection (stdio, a
 * 2025 `Mcp-Session-Id`, an in-memory pair) is one attachment for its whole
 * life. A stateless 2026-07-28 HTTP request names its attachment with the
 * `attachment` argument (docs/protocolRevisions.md); a resource read, which
 * has no arguments, goes through this front's one reader attachment.
 */
import type { ErrorObject } from '../../../protocol/index.js';
import type { HubPort } from '../../hub/hubPort.js';
import type { Attachment } from './attachment.js';
import type { StatelessAttachments } from './statelessAttachments.js';
import { ConnectionRouter, StatelessRouter, type SubscriptionRouter } from '../subscriptions.js';

/** The attachment of one tool call. */
export interface CallScope {
  readonly attachment: Attachment;
  readonly router: SubscriptionRouter;
  /** The handle to return in `meta.attachment` (stateless clients only). */
  readonly handle?: string;
  /** Ends this request's use of the attachment. */
  release(): void;
}

/** The attachment a resource read goes through. */
export interface ReadScope {
  readonly attachment: Attachment;
  release(): void;
}

/** How a front instance finds the attachment of each request. */
export interface AttachmentScope {
  /** True when tools take the `attachment` argument (stateless HTTP). */
  readonly takesHandle: boolean;
  /** The attachment of one tool call; `handle` is its `attachment` argument (stateless only). */
  forCall(handle: string | undefined, clientName: string): Promise<CallScope | ErrorObject>;
  /** The attachment of one resource read. */
  forRead(clientName: string): Promise<ReadScope | ErrorObject>;
}

/**
 * A connection's one attachment. `heard` learns the client's name from each
 * request (a 2026-07-28 client sends it with every request, not at an initialize).
 */
export function connectionScope(
  attachment: Attachment,
  heard: (clientName: string) => void = () => undefined,
): AttachmentScope {
  const router = new ConnectionRouter();
  const nothing = () => undefined;
  return {
    takesHandle: false,
    forCall: (_handle, clientName) => {
      heard(clientName);
      return Promise.resolve({ attachment, router, release: nothing });
    },
    forRead: (clientName) => {
      heard(clientName);
      return Promise.resolve({ attachment, release: nothing });
    },
  };
}

/** Options of {@link statelessScope}. */
export interface StatelessScopeOptions {
  attachments: StatelessAttachments;
  hub: HubPort;
  /** Who is asking: empty on one machine; the authenticated principal in a cluster. */
  principal: string;
}

/** The attachments of one stateless request. */
export function statelessScope(options: StatelessScopeOptions): AttachmentScope {
  const { attachments, hub, principal } = options;
  const connected = async () => (await hub.listSessions()).filter((s) => s.connected).map((s) => s.sessionId);
  return {
    takesHandle: true,
    async forCall(handle, clientName) {
      const lease = await attachments.acquire(handle, principal, clientName);
      if ('code' in lease) return lease;
      const router = new StatelessRouter(lease.key, lease.identity.attachmentId, connected);
      return { attachment: lease.attachment, router, handle: lease.identity.handle, release: lease.release };
    },
    async forRead() {
      const lease = await attachments.acquireReader(principal);
      if ('code' in lease) return lease;
      return { attachment: lease.attachment, release: lease.release };
    },
  };
}
