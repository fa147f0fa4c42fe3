/**
 * The page-facing shapes of the bridge runtime: how a terminal connects its host
 * SDK to the relay and follows the connection's status.
 */
import type { AttachmentSummary, Grant } from '../../protocol/index.js';

/** Where the connection stands. */
export type BridgeState =
  /** Not connected: retrying with backoff, or closed by the page. */
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
  /** `paired` means connected with a credential and this tab's session open. */
  state: BridgeState;
  /** The kept session id, once the server assigned one. */
  sessionId: string | null;
  /** MCP clients attached to the server and able to use this session. */
  attachments: AttachmentSummary[];
  /** A message for the person, e.g. how to get a fresh pairing link. */
  message: string | null;
  /** Whether the server was started with `--enable-trading` (known once connected). */
  tradingEnabled?: boolean;
}

/**
 * A pairing link opened in a tab that was already paired (SPEC §9): the grant
 * it proposes, which the page shows the person to accept or decline, or, when
 * the code was expired or used, why (`grant` null).
 */
export type PairLinkResult = { grant: Grant; message: null } | { grant: null; message: string };

/** Options of {@link BridgeHandle} creation. */
export interface ConnectOptions {
  /** e.g. `ws://127.0.0.1:7391/relay`. */
  relayUrl: string;
  /** A single-use pairing code (from `#pair=CODE`); used once, then a credential is kept. */
  pairCode?: string;
  /**
   * A bearer token for a relay that requires one: a vendor hosting the relay
   * for its traders (cluster mode, SPEC §14). The page gets it from its own
   * login; it is sent as the `bearer.<token>` WebSocket subprotocol.
   */
  relayToken?: string;
  /** The tab's title as MCP clients see it. */
  title: string;
  /** Called on every status change. */
  onStatus?: (status: BridgeStatus) => void;
  /** Called when a pairing link that paired this tab proposed a grant (e.g. `pair --grant trade`). */
  onGrantProposed?: (grant: Grant) => void;
  /** Called when a pairing link was opened in a tab already paired: ask the person (see {@link PairLinkResult}). */
  onPairLink?: (result: PairLinkResult) => void;
  /** Called when an MCP attachment ended (its subscriptions stop). */
  onAttachmentEnded?: (attachmentId: string) => void;
  /**
   * Starts the bridge worker; by default the bundled `worker.ts` as a module
   * worker. Tests and hosts with their own bundling pass their own, running
   * that module (it serves subscriptions, snapshots and the relay's timers).
   */
  createWorker?: () => Worker;
}

/** A connected bridge. */
export interface BridgeHandle {
  /** The latest status (also passed to `onStatus`). */
  status(): BridgeStatus;
  /** Ends every MCP attachment using this session. */
  detachAll(): void;
  /** Re-sends the session's title (the new one, if given), grant, environment and catalog. */
  updateInfo(title?: string): void;
  /**
   * Offers a pairing code the person entered or opened. Used at once when
   * unpaired; while a stored credential works it is kept only as a fallback.
   */
  pair(code: string): void;
  /** Replaces the relay's bearer token (a renewed login); used from the next reconnect on. */
  setRelayToken(token: string | null): void;
  /** Closes the session (`session.close`) and stops the worker. A reload needs no call: see `connectBridge`. */
  close(): void;
}
