/**
 * The page-facing shapes of the bridge runtime: how a terminal connects its host
 * SDK to the relay and follows the connection's status.
 */
import type { AttachmentSummary, Grant } from '../protocol/index.js';

/** Where the connection stands. */
export type BridgeState =
  /** Not connected; will retry with backoff. */
  | 'disconnected'
  | 'connecting'
  /** Exchanging a pairing code. */
  | 'pairing'
  /** Connected with a credential and a session. */
  | 'paired'
  /** No credential, or the credential was refused or revoked: pair again. */
  | 'unpaired';

/** What the page shows about its bridge. */
export interface BridgeStatus {
  state: BridgeState;
  /** The kept session id, once the server assigned one. */
  sessionId: string | null;
  /** MCP clients attached to the server and able to use this session. */
  attachments: AttachmentSummary[];
  /** A message for the person, e.g. how to get a fresh pairing link. */
  message: string | null;
}

/** Options of {@link BridgeHandle} creation. */
export interface ConnectOptions {
  /** e.g. `ws://127.0.0.1:7391/relay`. */
  relayUrl: string;
  /** A single-use pairing code (from `#pair=CODE`); used once, then a credential is kept. */
  pairCode?: string;
  /** The tab's title as MCP clients see it. */
  title: string;
  /** Called on every status change. */
  onStatus?: (status: BridgeStatus) => void;
  /** Called when a pairing link proposed a grant (e.g. `pair --grant trade`). */
  onGrantProposed?: (grant: Grant) => void;
}

/** A connected bridge. */
export interface BridgeHandle {
  status(): BridgeStatus;
  /** Ends every MCP attachment using this session. */
  detachAll(): void;
  /** Re-sends the session's title, grant, environment and catalog. */
  updateInfo(): void;
  /** Closes the session (the tab is going away). */
  close(): void;
}
