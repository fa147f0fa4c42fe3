/**
 * What `/mcp` serves (SPEC §2, §13): a 2025-11-25 session gets a
 * connection-scoped server (one attachment per `Mcp-Session-Id`); each
 * 2026-07-28 request gets a stateless server whose tool calls name their
 * attachment with a handle, all sharing this front's stateless attachments.
 */
import type { Server, ServerNotifier } from '@modelcontextprotocol/server';
import { SESSIONS_URI } from '../../protocol/index.js';
import type { HubPort } from '../hub/hubPort.js';
import type { HandleKeySource } from './attachments/attachmentKey.js';
import { createMcpServer, createStatelessMcpServer, type McpServerOptions } from './createMcpServer.js';
import { StatelessAttachments, type IdleClock } from './attachments/statelessAttachments.js';

/** Options of {@link createHttpFront}. */
export interface HttpFrontOptions extends Omit<McpServerOptions, 'transport' | 'era'> {
  /** Where the handle key comes from (default: the home's `attachment.key`). */
  keySource: HandleKeySource;
  /** Clock of the idle rule (tests). */
  clock?: IdleClock;
}

/** The MCP servers of one HTTP endpoint. */
export interface HttpFront {
  readonly hub: HubPort;
  /** `attachmentIdleMs` of this process. */
  readonly idleMs: number;
  /** Live stateless attachments of this endpoint. */
  readonly attachments: StatelessAttachments;
  /** The server of one new 2025-11-25 session. */
  session(): Server;
  /** The server of one 2026-07-28 request from `principal`. */
  request(principal: string): Server;
  /**
   * Publishes the hub's changes to the handler's `subscriptions/listen`
   * streams (SPEC §3, §13), once for all of them; returns the unsubscribe.
   */
  publishTo(notify: ServerNotifier): () => void;
  /** Ends the stateless attachments. */
  close(): Promise<void>;
}

/** Creates the servers `/mcp` hands out. */
export function createHttpFront(options: HttpFrontOptions): HttpFront {
  const idleMs = options.config.limits.attachmentIdleMs;
  const attachments = new StatelessAttachments({
    hub: options.hub,
    keySource: options.keySource,
    idleMs,
    logger: options.logger.child('stateless'),
    ...(options.clock ? { clock: options.clock } : {}),
  });
  const base: McpServerOptions = { ...options, transport: 'http' };
  return {
    hub: options.hub,
    idleMs,
    attachments,
    session: () => createMcpServer(base),
    request: (principal) => createStatelessMcpServer({ ...base, era: 'modern' }, { attachments, principal }),
    publishTo: (notify) => {
      const offs = [
        options.hub.on('sessionsChanged', () => {
          notify.resourcesChanged();
          notify.resourceUpdated(SESSIONS_URI);
        }),
        options.hub.on('sessionUpdated', () => notify.resourceUpdated(SESSIONS_URI)),
      ];
      return () => offs.forEach((off) => off());
    },
    close: () => attachments.close(),
  };
}
