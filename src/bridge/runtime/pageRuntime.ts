/**
 * The embedded bridge's runtime on the page's main thread (SPEC §1, issue 15
 * item 1): the relay connection (the page's own WebSocket, the credential
 * store) with this tab's session, serving its requests. Context, list, call
 * and batch go straight into the host SDK's dispatcher (`directCalls.ts`), so
 * a call never crosses a thread or posts a message. Subscribe and snapshot requests, attachment notices
 * and the session's state go to the bridge worker (`observerServer.ts`), which
 * keeps ring buffers and snapshot encoding off the main thread and starts
 * bindings and captures on the host over their own link; the relay timers run
 * on the worker's clock (`workerClock.ts`), which a hidden tab does not throttle.
 */
import { WorkerToPageSchema, type WorkerObserveMessage } from '../../protocol/wire/observeLink.js';
import type { CatalogDocument, Grant, SessionInfo } from '../../protocol/index.js';
import type { TerminalHost } from '../../sdk/types.js';
import { createHostRouter, type HostCalls } from '../link/hostRouter.js';
import { cloneCodec } from '../link/linkCodecs.js';
import { batchingEndpoint } from '../link/linkBatch.js';
import { portEndpoint, type PortLike } from '../link/linkEndpoint.js';
import { PageHostLink, type LinkHost } from '../link/pageHostLink.js';
import { directCalls } from './directCalls.js';
import type { BridgeStatus, PairLinkResult } from '../page/bridgeTypes.js';
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

/** The worker's link: host calls served here, the observer's answers and the clock's ticks handed on. */
function workerLink(host: RuntimeHost, port: PortLike, onNotice: (message: WorkerObserveMessage) => void) {
  return new PageHostLink<WorkerObserveMessage>(host, {
    endpoint: batchingEndpoint(portEndpoint(port)),
    codec: cloneCodec,
    inbound: WorkerToPageSchema,
    onNotice,
  });
}

/** One page's session on its own relay connection, observed by the bridge worker. */
class PageBridge implements PageRuntime {
  private readonly worker: PageHostLink<WorkerObserveMessage>;
  private readonly observer: ObserverClient;
  private readonly clock: WorkerClock | null = null;
  private readonly calls: HostCalls;
  private readonly connection: RelayClient;
  private readonly session: RelaySession;
  private info: SessionInfo;
  private lastStatus = '';

  constructor(
    private readonly host: RuntimeHost,
    config: RuntimeConfig,
    private readonly notices: PageNotices,
    deps: PageRuntimeDeps,
  ) {
    this.info = config.info;
    this.worker = workerLink(host, deps.worker, (message) =>
      message.t === 'tick' ? this.clock?.tick(message.id) : this.observer.receive(message),
    );
    const post: WorkerPost = (message) => this.worker.post(message);
    this.observer = new ObserverClient(post);
    // First on the link: the kept id, whose journal the worker reads before serving a request.
    this.observer.session({ sessionId: config.sessionId ?? null, open: false });
    if (!deps.clock) this.clock = new WorkerClock(post);
    this.calls = directCalls(host);
    this.connection = this.connect(config, deps);
    this.session = this.openSession(config);
    this.emit();
    this.connection.start();
  }

  private connect(config: RuntimeConfig, deps: PageRuntimeDeps): RelayClient {
    const { notices } = this;
    return new RelayClient({
      url: config.relayUrl,
      webSocket: deps.webSocket,
      credentials: deps.credentials,
      agent: { kind: 'page', version: config.agentVersion },
      pairCode: config.pairCode ?? null,
      relayToken: config.relayToken ?? null,
      clock: deps.clock ?? this.clock ?? undefined,
      random: deps.random,
      backoff: deps.backoff,
      onStatus: () => this.emit(),
      onGrantProposed: (grant) => notices.grantProposed(grant),
      onPairLink: (result) => notices.pairLink(result),
      onAttachmentEnded: (id) => {
        this.observer.attachmentEnded(id);
        notices.attachmentEnded(id);
      },
    });
  }

  private openSession(config: RuntimeConfig): RelaySession {
    return this.connection.openSession({
      sessionId: config.sessionId,
      info: config.info,
      catalog: this.host.catalog(),
      handler: createHostRouter(
        this.calls,
        () => this.info.environment ?? null,
        (request, hooks) => this.observer.handle(request, hooks),
      ),
      onChange: (status) => {
        this.observer.session(status);
        this.emit();
      },
      onAttachments: (ids) => this.observer.attachmentsListed(ids),
    });
  }

  updateInfo(info: SessionInfo, catalog: CatalogDocument): void {
    this.info = info;
    this.session.update(info, catalog);
  }

  pair(code: string): void {
    this.connection.pair(code);
  }

  setRelayToken(token: string | null): void {
    this.connection.setRelayToken(token);
  }

  detachAll(): void {
    this.session.detach();
  }

  close(): void {
    this.observer.close();
    this.connection.close();
    this.worker.close();
  }

  private emit(): void {
    const status = composeStatus(this.connection.status(), this.session.status());
    const text = JSON.stringify(status);
    if (text === this.lastStatus) return;
    this.lastStatus = text;
    this.notices.status(status);
  }
}

/** Connects `host` to the relay and opens its session; the bridge worker (`deps.worker`) serves its observer. */
export function startPageRuntime(
  host: RuntimeHost,
  config: RuntimeConfig,
  notices: PageNotices,
  deps: PageRuntimeDeps,
): PageRuntime {
  return new PageBridge(host, config, notices, deps);
}
