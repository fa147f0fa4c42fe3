/**
 * The embedded bridge's runtime on the page's main thread (SPEC §1, issue 15
 * item 1): the relay connection (the page's own WebSocket, the credential
 * store) with this tab's session, serving its requests. Context, list, call
 * and batch reach the host SDK through the host-call link inside this thread
 * (`memoryLink.ts`: the same link code and checks, no postMessage), so a call
 * never crosses a thread. Subscribe and snapshot requests, attachment notices
 * and the session's state go to the bridge worker (`observerServer.ts`), which
 * keeps ring buffers and snapshot encoding off the main thread and starts
 * bindings and captures on the host over their own link; the relay timers run
 * on the worker's clock (`workerClock.ts`), which a hidden tab does not throttle.
 */
import { WorkerToPageSchema, type WorkerObserveMessage } from '../../protocol/wire/observeLink.js';
import type { CatalogDocument, Grant, SessionInfo } from '../../protocol/index.js';
import type { TerminalHost } from '../../sdk/types.js';
import { BridgeHostLink } from '../link/bridgeHostLink.js';
import { createHostRouter } from '../link/hostRouter.js';
import { cloneCodec } from '../link/linkCodecs.js';
import { batchingEndpoint } from '../link/linkBatch.js';
import { portEndpoint, type PortLike } from '../link/linkEndpoint.js';
import { memoryLink } from '../link/memoryLink.js';
import { PageHostLink, type LinkHost } from '../link/pageHostLink.js';
import type { BridgeStatus, PairLinkResult } from '../page/bridgeTypes.js';
import { pageDefect } from '../page/pageError.js';
import type { BackoffPolicy } from '../relay/backoff.js';
import type { BrowserCredentialStore } from '../relay/browserCredentials.js';
import type { BrowserSocketConstructor } from '../relay/browserSocket.js';
import type { RelaySession } from '../relay/clientSessions.js';
import type { Clock } from '../relay/clock.js';
import { composeStatus } from '../relay/composeStatus.js';
import { RelayClient } from '../relay/relayClient.js';
import { ObserverClient } from './observerClient.js';
import { WorkerClock, type WorkerPost } from './workerClock.js';

/** How the page connects. */
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

/** What the runtime tells the page. */
export interface PageNotices {
  /** Every change of the bridge's status. */
  status(status: BridgeStatus): void;
  /** A pairing link that paired this tab proposed a grant. */
  grantProposed(grant: Grant): void;
  /** A pairing link opened in this already paired tab: what it proposes, for the person to decide. */
  pairLink(result: PairLinkResult): void;
  /** An MCP attachment ended. */
  attachmentEnded(attachmentId: string): void;
}

/** The host the runtime serves: the host-call link's part and its catalog. */
export type RuntimeHost = LinkHost & Pick<TerminalHost, 'catalog'>;

/** What the runtime runs on. */
export interface PageRuntimeDeps {
  webSocket: BrowserSocketConstructor;
  credentials: BrowserCredentialStore;
  /** The bridge worker (or, in tests, a MessagePort to `serveObserver`). */
  worker: PortLike;
  /** The relay's timers; default the worker's (see `workerClock.ts`). */
  clock?: Clock;
  random?: () => number;
  backoff?: BackoffPolicy;
}

/** The running bridge, as the page drives it. */
export interface PageRuntime {
  /** Re-sends the session's info and catalog (after a grant or title change). */
  updateInfo(info: SessionInfo, catalog: CatalogDocument): void;
  /** Offers a pairing code (typed in, or from a pairing link). */
  pair(code: string): void;
  /** Replaces the relay's bearer token for the next connect. */
  setRelayToken(token: string | null): void;
  /** Ends every MCP attachment using this session (`detach`). */
  detachAll(): void;
  /** Closes the session (`session.close`), the connection and the worker's observer. */
  close(): void;
}

const UNANSWERED = pageDefect('The page did not answer this request; reload the terminal tab.');

function ignore(): undefined {
  // Nothing arrives on the in-thread link but answers; its binding events have no reader.
  return undefined;
}

/**
 * The host as the in-thread link serves it: its requests only. Bindings and
 * captures are the worker's, and so are target unregistrations (they follow
 * the binding events on the worker's link).
 */
function callsOf(host: RuntimeHost): LinkHost {
  return {
    handle: (request, hooks) => host.handle(request, hooks),
    startBinding: (request, sink) => host.startBinding(request, sink),
    stopBinding: (subscriptionId, bindingId) => host.stopBinding(subscriptionId, bindingId),
    capture: (target, options) => host.capture(target, options),
    onTargetUnregistered: () => () => undefined,
  };
}

/** The worker's link: host calls served here, the observer's answers and the clock's ticks handed on. */
function workerLink(host: RuntimeHost, port: PortLike, onNotice: (message: WorkerObserveMessage) => void) {
  return new PageHostLink<WorkerObserveMessage>(host, {
    endpoint: batchingEndpoint(portEndpoint(port)),
    codec: cloneCodec,
    inbound: WorkerToPageSchema,
    onNotice,
  });
}

/** Connects `host` to the relay and opens its session; the bridge worker serves its observer. */
export function startPageRuntime(
  host: RuntimeHost,
  config: RuntimeConfig,
  notices: PageNotices,
  deps: PageRuntimeDeps,
): PageRuntime {
  let info = config.info;
  let clock: WorkerClock | null = null;
  const worker = workerLink(host, deps.worker, (message) =>
    message.t === 'tick' ? clock?.tick(message.id) : observer.receive(message),
  );
  const post: WorkerPost = (message) => worker.post(message);
  const observer = new ObserverClient(post);
  observer.session({ sessionId: config.sessionId ?? null, open: false });
  if (!deps.clock) clock = new WorkerClock(post);
  const [bridgeEnd, pageEnd] = memoryLink();
  const server = new PageHostLink(callsOf(host), { endpoint: pageEnd, codec: cloneCodec });
  const calls = new BridgeHostLink({
    endpoint: bridgeEnd,
    codec: cloneCodec,
    onNotice: ignore,
    unanswered: UNANSWERED,
  });
  let lastStatus = '';
  const emit = (): void => {
    const status = composeStatus(connection.status(), session.status());
    const text = JSON.stringify(status);
    if (text === lastStatus) return;
    lastStatus = text;
    notices.status(status);
  };
  const connection = new RelayClient({
    url: config.relayUrl,
    webSocket: deps.webSocket,
    credentials: deps.credentials,
    agent: { kind: 'page', version: config.agentVersion },
    pairCode: config.pairCode ?? null,
    relayToken: config.relayToken ?? null,
    clock: deps.clock ?? clock ?? undefined,
    random: deps.random,
    backoff: deps.backoff,
    onStatus: emit,
    onGrantProposed: (grant) => notices.grantProposed(grant),
    onPairLink: (result) => notices.pairLink(result),
    onAttachmentEnded: (id) => {
      observer.attachmentEnded(id);
      calls.attachmentEnded(id);
      notices.attachmentEnded(id);
    },
  });
  const session: RelaySession = connection.openSession({
    sessionId: config.sessionId,
    info: config.info,
    catalog: host.catalog(),
    handler: createHostRouter(
      calls,
      () => info.environment ?? null,
      (request, hooks) => observer.handle(request, hooks),
    ),
    onChange: (status) => {
      observer.session(status);
      emit();
    },
    onAttachments: (ids) => observer.attachmentsListed(ids),
  });
  emit();
  connection.start();
  return {
    updateInfo(newInfo, catalog) {
      info = newInfo;
      session.update(newInfo, catalog);
    },
    pair: (code) => connection.pair(code),
    setRelayToken: (token) => connection.setRelayToken(token),
    detachAll: () => session.detach(),
    close() {
      observer.close();
      connection.close();
      calls.close();
      server.close();
      worker.close();
    },
  };
}
