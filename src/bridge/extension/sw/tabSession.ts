/**
 * One attached tab in the extension's service worker (SPEC §2, §10): its
 * relay session on the shared connection (the site's origin, the kept id),
 * the link to the page's host SDK, and the subscriptions and snapshots the
 * worker observer serves here. The site's grant is the person's choice in the
 * popup: it is set on the page's host and sent with the session's info.
 */
import {
  PageMessageSchema,
  type ActivityItem,
  type ExtensionMessage,
  type PageMessage,
  type TabSessionView,
} from '../../../protocol/wire/extensionLink.js';
import type { LinkView } from '../../../protocol/wire/hostLink.js';
import {
  makeError,
  type CatalogDocument,
  type Environment,
  type Grant,
  type SessionInfo,
  type Target,
} from '../../../protocol/index.js';
import type { CaptureOptions, CaptureOutcome } from '../../../sdk/types.js';
import { systemClock } from '../../relay/clock.js';
import type { RelayClientStatus, RelayClient } from '../../relay/relayClient.js';
import { BridgeCallLink } from '../../link/bridgeCallLink.js';
import type { PageNotice } from '../../link/bridgeHostLink.js';
import { createHostRouter } from '../../link/hostRouter.js';
import { jsonCodec, type PngCodec } from '../../link/linkCodecs.js';
import type { LinkEndpoint } from '../../link/linkEndpoint.js';
import type { EncodedCapture, ObservePort } from '../../observe/observeTypes.js';
import { composeStatus } from '../../relay/composeStatus.js';
import type { RelaySession, RequestHandler, SessionStatus } from '../../relay/clientSessions.js';
import type { SubscriptionJournal } from '../../observe/subscriptionJournal.js';
import type { BridgeStatus } from '../../page/bridgeTypes.js';
import { WorkerObserver } from '../../worker/workerObserver.js';
import { activityOf } from './activity.js';

/** The page's session, as it tells it on the link. */
export type PageSessionMessage = Extract<PageMessage, { t: 'attach' | 'update' }>;
/** What a tab's page says besides replies: its session and binding events. */
export type TabNotice = PageNotice | PageSessionMessage;
/** The service worker's end of one tab's host-call link. */
export type TabLinkClient = BridgeCallLink<PageSessionMessage>;

/** How long past its deadline a request waits for the page (the server has answered it by then). */
const DEADLINE_GRACE_MS = 5_000;
/** How long a binding start, capture or locate waits for the page. */
export const PAGE_ANSWER_TIMEOUT_MS = 35_000;

const GONE = 'The terminal tab went away before it answered; read tradescript://sessions again.';

/**
 * The service worker's end of a tab's host-call link, over the tab's
 * `chrome.runtime` Port: the JSON codec (captures arrive as PNGs), answers
 * that time out (a tab can go away without a word), and the page's own
 * messages (`attach`, `update`, binding events) handed to `onNotice`.
 */
export function tabLinkClient(
  endpoint: LinkEndpoint,
  png: Pick<PngCodec, 'decode'>,
  onNotice: (message: TabNotice) => void,
): TabLinkClient {
  const encode = (): Promise<string> => Promise.reject(new Error('the service worker never encodes a capture'));
  return new BridgeCallLink<PageSessionMessage>({
    endpoint,
    codec: jsonCodec({ encode, decode: png.decode }),
    inbound: PageMessageSchema,
    onNotice,
    unanswered: makeError('transport_error', GONE),
    timeouts: { graceMs: DEADLINE_GRACE_MS, askMs: PAGE_ANSWER_TIMEOUT_MS },
  });
}

/** The browser's own capture of the visible tab, cropped to `view`; null when it cannot be used now. */
export type VisibleCapture = (
  view: LinkView,
  options: CaptureOptions,
) => Promise<CaptureOutcome | EncodedCapture | null>;

/** What one tab's session needs. */
export interface TabSessionOptions {
  tabId: number;
  /** The site's origin, as the browser reported the tab's sender. */
  origin: string;
  /** The tab's URL without query or fragment, as the browser reported it. */
  url: string;
  grant: Grant;
  /** The id this tab kept across service-worker restarts. */
  keptSessionId: string | null;
  /** The tab's host-call link (one per content-script Port). */
  client: TabLinkClient;
  /** Tells the page what is not a host call (its grant, its status). */
  send(message: ExtensionMessage): void;
  visibleCapture?: VisibleCapture;
  journal?: SubscriptionJournal;
  /** The session's status or info changed. */
  onChange(): void;
  /** The server assigned (or kept) an id. */
  onSessionId(sessionId: string): void;
  onActivity(items: ActivityItem[]): void;
}

/** What the page told in its `attach`. */
export interface PageAttach {
  info: SessionInfo;
  catalog: CatalogDocument;
}

const MAX_URL = 2048;

/** One tab's session. */
export class TabSession {
  readonly client: TabLinkClient;
  private readonly observer: WorkerObserver;
  private relay: RelaySession | null = null;
  private connection: RelayClient | null = null;
  private page: PageAttach;
  private grant: Grant;
  private sessionId: string | null;
  private closed = false;

  constructor(
    private readonly options: TabSessionOptions,
    attach: PageAttach,
  ) {
    this.page = attach;
    this.grant = options.grant;
    this.sessionId = options.keptSessionId;
    this.client = options.client;
    this.observer = new WorkerObserver({
      port: this.observePort(),
      clock: systemClock,
      journal: options.journal,
      sessionOpen: () => this.relay?.status().open ?? false,
    });
    this.observer.restore(this.sessionId);
    this.options.send({ t: 'grant', grant: this.grant });
  }

  get tabId(): number {
    return this.options.tabId;
  }

  get origin(): string {
    return this.options.origin;
  }

  /** Opens (or reopens, on a new connection) the relay session with the kept id. */
  open(connection: RelayClient): void {
    if (this.closed) return;
    this.relay?.close();
    this.connection = connection;
    this.relay = connection.openSession({
      sessionId: this.sessionId,
      origin: this.options.origin,
      info: this.info(),
      catalog: this.page.catalog,
      handler: this.handler(),
      onChange: (status) => this.sessionChanged(status),
      onAttachments: (ids) => this.observer.attachmentsListed(ids),
    });
    this.pushStatus();
  }

  /** Applies one message from the page that is not a reply (parsed by the link). */
  receive(message: TabNotice): void {
    if (message.t !== 'attach' && message.t !== 'update') return this.observer.receive(message);
    this.page = { info: message.info, catalog: message.catalog };
    this.relay?.update(this.info(), this.page.catalog);
    this.options.onChange();
  }

  /** The person changed the site's grant: the page's host hears it, then the server. */
  setGrant(grant: Grant): void {
    this.grant = grant;
    this.options.send({ t: 'grant', grant });
    this.relay?.update(this.info(), this.page.catalog);
    this.options.onChange();
  }

  /** An MCP attachment ended (its subscriptions here stop). */
  attachmentEnded(attachmentId: string): void {
    this.observer.attachmentEnded(attachmentId);
  }

  /** Ends every MCP attachment using this session. */
  detach(): void {
    this.relay?.detach();
  }

  /** Tells the page how its session stands. */
  pushStatus(): void {
    if (!this.connection || !this.relay) return;
    const status = this.status(this.connection.status());
    this.options.send({ t: 'status', status });
  }

  /**
   * The link or the tab is gone: the session closes (`session.close`), so the
   * server reports whatever was in flight to the page as lost, and its
   * subscriptions stop. A reload reopens it under the kept id.
   */
  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.relay?.close();
    this.relay = null;
    this.observer.close();
    this.client.abandon();
  }

  /** What the popup shows of this tab. */
  view(): TabSessionView {
    const status = this.relay?.status();
    return {
      tabId: this.options.tabId,
      origin: this.options.origin,
      title: this.page.info.title,
      sessionId: status?.sessionId ?? this.sessionId,
      open: status?.open ?? false,
      attachments: status?.attachments ?? [],
      environment: this.environment(),
    };
  }

  private status(connection: RelayClientStatus): BridgeStatus {
    const session: SessionStatus = this.relay?.status() ?? {
      sessionId: this.sessionId,
      open: false,
      attachments: [],
      message: null,
    };
    return composeStatus(connection, session);
  }

  private environment(): Environment | null {
    return this.page.info.environment ?? null;
  }

  private info(): SessionInfo {
    const url = this.options.url.length <= MAX_URL ? { url: this.options.url } : {};
    const environment = this.page.info.environment ? { environment: this.page.info.environment } : {};
    return { title: this.page.info.title, ...url, ...environment, grant: this.grant };
  }

  private sessionChanged(status: SessionStatus): void {
    if (status.sessionId !== null && status.sessionId !== this.sessionId) {
      // A refused kept id was replaced: the old session's subscriptions went with it.
      if (this.sessionId !== null) this.observer.registry.sessionClosed(this.sessionId);
      this.sessionId = status.sessionId;
      this.options.onSessionId(status.sessionId);
    }
    this.pushStatus();
    this.options.onChange();
  }

  private handler(): RequestHandler {
    const route = createHostRouter(
      this.client,
      () => this.environment(),
      (request, hooks) => this.observer.handle(request, hooks),
    );
    return async (request, hooks) => {
      const startedAt = Date.now();
      const result = await route(request, hooks);
      const items = activityOf(request, result.outcome, Date.now() - startedAt, new Date().toISOString());
      if (items.length > 0) this.options.onActivity(items);
      return result;
    };
  }

  private observePort(): ObservePort {
    return {
      startBinding: (request, handle) => this.client.startBinding(request, handle),
      stopBinding: (subscriptionId, bindingId) => this.client.stopBinding(subscriptionId, bindingId),
      capture: (target, options) => this.capture(target, options),
    };
  }

  /** SPEC §8 "In the extension": the visible tab when the target is on screen, else the SDK's capture. */
  private async capture(target: Target, options: CaptureOptions): Promise<CaptureOutcome | EncodedCapture> {
    const { visibleCapture } = this.options;
    if (visibleCapture && target.scope !== 'session') {
      const view = await this.client.locate(target);
      const fast = view ? await visibleCapture(view, options).catch(() => null) : null;
      if (fast) return fast;
    }
    return this.client.capture(target, options);
  }
}
