/**
 * The bridge runtime a page's worker exposes with comlink (SPEC §1): one relay
 * connection with this tab's session, serving requests through the host-call
 * link to the page. It takes its WebSocket and credential store as arguments,
 * so Node tests run it over a real MessageChannel against a real `ws` server.
 */
import { releaseProxy, type Remote } from 'comlink';
import type { CatalogDocument, SessionInfo } from '../../protocol/index.js';
import type { BackoffPolicy } from '../relay/backoff.js';
import { systemClock, type Clock } from '../relay/clock.js';
import { RelayClient, type RelayClientStatus } from '../relay/relayClient.js';
import type { BrowserCredentialStore } from '../relay/browserCredentials.js';
import { BridgeHostLink } from '../link/bridgeHostLink.js';
import { createHostRouter } from '../link/hostRouter.js';
import { cloneCodec } from '../link/linkCodecs.js';
import { batchingEndpoint } from '../link/linkBatch.js';
import { portEndpoint } from '../link/linkEndpoint.js';
import { pageDefect } from '../page/pageError.js';
import type { RelaySession, SessionStatus } from '../relay/clientSessions.js';
import type { BrowserSocketConstructor } from '../relay/browserSocket.js';
import type { ImageEncoder } from '../observe/snapshotEncode.js';
import type { SubscriptionJournal } from '../observe/subscriptionJournal.js';
import type { BridgeStatus } from '../page/bridgeTypes.js';
import type { BridgeRuntimeApi, PageNotices, RuntimeConfig, RuntimePorts } from './workerApi.js';
import { WorkerObserver } from './workerObserver.js';

/** What the runtime runs on. */
export interface RuntimeDeps {
  webSocket: BrowserSocketConstructor;
  credentials: BrowserCredentialStore;
  clock?: Clock;
  random?: () => number;
  backoff?: BackoffPolicy;
  /** Where subscription ids outlive the worker (else a restart forgets them). */
  journal?: SubscriptionJournal;
  /** Scales and encodes snapshots (default: OffscreenCanvas). */
  encoder?: ImageEncoder;
}

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

const UNANSWERED = pageDefect('The page did not answer this request; reload the terminal tab.');

function ignore(): undefined {
  // The page port is gone (the tab is closing): no one is left to tell.
  return undefined;
}

/** One page's session on its own relay connection. */
class PageRuntime {
  readonly connection: RelayClient;
  readonly session: RelaySession;
  readonly observer: WorkerObserver;
  readonly calls: BridgeHostLink;
  private info: SessionInfo;
  private sessionId: string | null;
  private lastStatus = '';

  constructor(
    deps: RuntimeDeps,
    config: RuntimeConfig,
    catalog: CatalogDocument,
    readonly page: Remote<PageNotices>,
    ports: RuntimePorts,
  ) {
    this.info = config.info;
    this.sessionId = config.sessionId ?? null;
    const clock = deps.clock ?? systemClock;
    this.calls = new BridgeHostLink({
      endpoint: batchingEndpoint(portEndpoint(ports.link)),
      codec: cloneCodec,
      onNotice: (message) => this.observer.receive(message),
      unanswered: UNANSWERED,
    });
    this.observer = new WorkerObserver({
      port: this.calls,
      clock,
      journal: deps.journal,
      encoder: deps.encoder,
      sessionOpen: () => this.session.status().open,
    });
    this.observer.restore(config.sessionId);
    this.connection = new RelayClient({
      url: config.relayUrl,
      webSocket: deps.webSocket,
      credentials: deps.credentials,
      agent: { kind: 'page', version: config.agentVersion },
      pairCode: config.pairCode ?? null,
      relayToken: config.relayToken ?? null,
      clock: deps.clock,
      random: deps.random,
      backoff: deps.backoff,
      onStatus: () => this.emit(),
      onGrantProposed: (grant) => void page.grantProposed(grant).catch(ignore),
      onPairLink: (result) => void page.pairLink(result).catch(ignore),
      onAttachmentEnded: (id) => {
        this.observer.attachmentEnded(id);
        this.calls.attachmentEnded(id);
        void page.attachmentEnded(id).catch(ignore);
      },
    });
    this.session = this.openSession(config, catalog);
  }

  private openSession(config: RuntimeConfig, catalog: CatalogDocument): RelaySession {
    return this.connection.openSession({
      sessionId: config.sessionId,
      info: config.info,
      catalog,
      handler: createHostRouter(
        this.calls,
        () => this.info.environment ?? null,
        (request, hooks) => this.observer.handle(request, hooks),
      ),
      onChange: (status) => {
        this.sessionIdChanged(status.sessionId);
        this.emit();
      },
      onAttachments: (ids) => this.observer.attachmentsListed(ids),
    });
  }

  update(info: SessionInfo, catalog: CatalogDocument): void {
    this.info = info;
    this.session.update(info, catalog);
  }

  /** The server refused the kept id and gave a new one: the old session's subscriptions are gone with it. */
  private sessionIdChanged(sessionId: string | null): void {
    if (this.sessionId !== null && sessionId !== null && sessionId !== this.sessionId) {
      this.observer.registry.sessionClosed(this.sessionId);
    }
    this.sessionId = sessionId ?? this.sessionId;
  }

  emit(): void {
    const status = composeStatus(this.connection.status(), this.session.status());
    const text = JSON.stringify(status);
    if (text === this.lastStatus) return;
    this.lastStatus = text;
    void this.page.status(status).catch(ignore);
  }
}

/** Builds the runtime API a worker exposes (see `worker.ts`). */
export function createBridgeRuntime(deps: RuntimeDeps): BridgeRuntimeApi {
  let runtime: PageRuntime | null = null;
  let starting = false;
  return {
    async start(config, page, ports) {
      if (starting) throw new Error('The bridge runtime is already started; create a new worker for another session.');
      starting = true;
      // comlink hands a proxy-marked argument over as a Remote of it.
      const remote = page as unknown as Remote<PageNotices>;
      runtime = new PageRuntime(deps, config, await remote.catalog(), remote, ports);
      runtime.emit();
      runtime.connection.start();
    },
    updateInfo(info, catalog) {
      runtime?.update(info, catalog);
    },
    pair(code) {
      runtime?.connection.pair(code);
    },
    setRelayToken(token) {
      runtime?.connection.setRelayToken(token);
    },
    detachAll() {
      runtime?.session.detach();
    },
    close() {
      const closing = runtime;
      runtime = null;
      closing?.observer.close();
      closing?.connection.close();
      closing?.calls.close();
      closing?.page[releaseProxy]();
    },
  };
}
