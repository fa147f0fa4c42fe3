/**
 * The contract between a page and its bridge worker: what the worker exposes
 * with comlink, what the page hands it (as one `comlink.proxy`), and the
 * MessagePort it transfers at start: the host-call link (`hostLink.ts` in
 * src/protocol), on which every request, binding and capture for the host SDK,
 * their answers and the binding events travel as plain messages. Comlink
 * carries only what is not per call: start, status and the catalog.
 */
import type { ProxyMarked } from 'comlink';
import type { CatalogDocument, Grant, SessionInfo } from '../../protocol/index.js';
import type { PortLike } from '../link/linkEndpoint.js';
import type { BridgeStatus, PairLinkResult } from '../page/bridgeTypes.js';

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

/** What the page offers the worker (passed once, through `comlink.proxy`): its catalog and status callbacks. */
export interface PageNotices {
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

/** The port the page transfers to the worker at start. */
export interface RuntimePorts {
  /** The host-call link: requests, bindings and captures for the host SDK, their answers, binding events. */
  link: PortLike;
}

/** What the bridge worker exposes (SPEC §1). */
export interface BridgeRuntimeApi {
  /** Connects, opens this tab's session and serves its requests through the host-call link. */
  start(config: RuntimeConfig, page: PageNotices & ProxyMarked, ports: RuntimePorts): Promise<void>;
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
