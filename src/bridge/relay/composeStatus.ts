/**
 * The page's view of its bridge (SPEC §2): the connection's state and the
 * session's, as one status (the page's bridge and the extension's tabs alike).
 */
import type { BridgeStatus } from '../page/bridgeTypes.js';
import type { SessionStatus } from './clientSessions.js';
import type { RelayClientStatus } from './relayClient.js';

/** The page's view: `paired` only once the session is open too. */
export function composeStatus(connection: RelayClientStatus, session: SessionStatus): BridgeStatus {
  const state = connection.state === 'paired' && !session.open ? 'connecting' : connection.state;
  return {
    state,
    sessionId: session.sessionId,
    attachments: session.attachments,
    message: connection.message ?? session.message,
    ...(connection.tradingEnabled === undefined ? {} : { tradingEnabled: connection.tradingEnabled }),
  };
}
