/**
 * The comlink contract between a page and its bridge worker: what the worker
 * exposes, and what the page hands it (as one `comlink.proxy`, plus the
 * MessagePort its subscription events travel on, see `eventBatch.ts`).
 * AbortSignals do not cross comlink, so cancellation is its own call;
 * progress travels back through the worker's `reportProgress` so no request
 * opens a port.
 */
import type { ProxyMarked } from 'comlink';
import type { CatalogDocument, Grant, SessionInfo } from '../protocol/index.js';
import type { SessionOutcome, SessionRequest } from '../sdk/types.js';
import type { EventPortReceiver } from './eventBatch.js';
import type { ObservePort } from './observeTypes.js';
import type { BridgeStatus } from './types.js';

/** How the worker connects. */
export interface RuntimeConfig {
  /** e.g. `ws://127.0.0.1:7391/relay`. */
  relayUrl: string;
  /** A single-use pairing code; used only when no credential is stored. */
  pairCode?: string | null;
  /** The id this tab kept in sessionStorage, if any. */
  sessionId?: string | null;
  info: SessionInfo;
  /** `hello.agent.version`. */
  agentVersion: string;
}

/**
 * What the page offers the worker (passed once, through `comlink.proxy`):
 * requests for the host SDK, and the binding and capture calls of
 * subscriptions and snapshots, which the worker serves itself.
 */
export interface PagePort extends ObservePort {
  /** Runs one request through the host SDK on the main thread. */
  handle(request: SessionRequest): Promise<SessionOutcome>;
  /** Aborts that request's signal on the page (a dispatched mutation still runs to its outcome). */
  cancel(requestId: string): void;
  /** The host's installed vocabulary. */
  catalog(): CatalogDocument;
  /** Every change of the bridge's status. */
  status(status: BridgeStatus): void;
  /** A pairing link proposed a grant. */
  grantProposed(grant: Grant): void;
  /** An MCP attachment ended. */
  attachmentEnded(attachmentId: string): void;
}

/** What the bridge worker exposes (SPEC §1). */
export interface BridgeRuntimeApi {
  /**
   * Connects, opens this tab's session and serves its requests through `page`;
   * subscription events arrive on `events` (transferred). Without it, no
   * binding's event reaches its subscription.
   */
  start(config: RuntimeConfig, page: PagePort & ProxyMarked, events?: EventPortReceiver): Promise<void>;
  /** Re-sends the session's info and catalog (after a grant or title change). */
  updateInfo(info: SessionInfo, catalog: CatalogDocument): void;
  /** The page's progress hook of a running request. */
  reportProgress(requestId: string, progress: number, total?: number): void;
  /** Offers a pairing code (typed in, or from a pairing link). */
  pair(code: string): void;
  /** Ends every MCP attachment using this session (`detach`). */
  detachAll(): void;
  /** Closes the session (`session.close`) and the connection. */
  close(): void;
}
