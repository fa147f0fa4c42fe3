/**
 * The contract between a page and its bridge worker: what the worker exposes
 * with comlink, what the page hands it (as one `comlink.proxy`), and the two
 * MessagePorts it transfers at start: the call port, on which every request
 * for the host SDK and its answer travel as plain messages (`callPort.ts`),
 * and the event port of subscriptions (`eventBatch.ts`). Comlink carries only
 * what is not per call: start, status, catalog, bindings and captures.
 */
import type { ProxyMarked } from 'comlink';
import type { CatalogDocument, Grant, SessionInfo } from '../protocol/index.js';
import type { CallPortEnd, CallPortRequest } from './callPort.js';
import type { EventPortReceiver } from './eventBatch.js';
import type { ObservePort } from './observeTypes.js';
import type { BridgeStatus, PairLinkResult } from './types.js';

/** How the worker connects. */
export interface RuntimeConfig {
  /** e.g. `ws://127.0.0.1:7391/relay`. */
  relayUrl: string;
  /** A single-use pairing code; used only when no credential is stored. */
  pairCode?: string | null;
  /** A bearer token for a relay that requires one (SPEC §14). */
  relayToken?: string | null;
  /** The id this tab kept in sessionStorage, if any. */
  sessionId?: string | null;
  info: SessionInfo;
  /** `hello.agent.version`. */
  agentVersion: string;
}

/**
 * What the page offers the worker (passed once, through `comlink.proxy`): the
 * binding and capture calls of subscriptions and snapshots, which the worker
 * serves itself, and the page's status callbacks.
 */
export interface PagePort extends ObservePort {
  /** The host's installed vocabulary. */
  catalog(): CatalogDocument;
  /** Every change of the bridge's status. */
  status(status: BridgeStatus): void;
  /** A pairing link that paired this tab proposed a grant. */
  grantProposed(grant: Grant): void;
  /** A pairing link opened in this already paired tab: what it proposes, for the person to decide. */
  pairLink(result: PairLinkResult): void;
  /** An MCP attachment ended. */
  attachmentEnded(attachmentId: string): void;
}

/** The ports the page transfers to the worker at start. */
export interface RuntimePorts {
  /** Requests for the host SDK, their answers and progress (see `callPort.ts`). */
  calls: CallPortEnd<CallPortRequest>;
  /** Subscription events in batches; without it, no binding's event reaches its subscription. */
  events?: EventPortReceiver;
}

/** What the bridge worker exposes (SPEC §1). */
export interface BridgeRuntimeApi {
  /** Connects, opens this tab's session and serves its requests through the call port. */
  start(config: RuntimeConfig, page: PagePort & ProxyMarked, ports: RuntimePorts): Promise<void>;
  /** Re-sends the session's info and catalog (after a grant or title change). */
  updateInfo(info: SessionInfo, catalog: CatalogDocument): void;
  /** Offers a pairing code (typed in, or from a pairing link). */
  pair(code: string): void;
  /** Replaces the relay's bearer token for the next connect. */
  setRelayToken(token: string | null): void;
  /** Ends every MCP attachment using this session (`detach`). */
  detachAll(): void;
  /** Closes the session (`session.close`) and the connection. */
  close(): void;
}
