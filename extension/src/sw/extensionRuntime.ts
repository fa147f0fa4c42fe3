/**
 * The bridge runtime in the extension's service worker (SPEC §1, §10): one
 * relay connection (agent `extension`) carrying one session per attached tab,
 * the sites the person allowed with their grants, and what the popup shows.
 * Everything it keeps lives in `chrome.storage`, so a restarted service worker
 * picks up where the stopped one was: same credential, same session ids.
 */
import {
  BRIDGE_VERSION,
  createIdbSubscriptionJournal,
  pushActivity,
  RelayClient,
  TabSession,
  type PageAttach,
  type TabLinkClient,
} from '../../../src/bridge/extension/sw/index.js';
import type {
  ActivityItem,
  ExtensionMessage,
  PopupState,
  SiteGrant,
} from '../../../src/protocol/wire/extensionLink.js';
import { injectIntoOpenTabs, releaseHostPermission, syncSiteScripts } from './siteScripts.js';
import * as store from './storage.js';
import { visibleCaptureFor } from './visibleCapture.js';

/** One tab's content-script Port, as the runtime attaches it. */
export interface TabLink {
  tabId: number;
  origin: string;
  url: string;
  /** The tab's host-call link. */
  client: TabLinkClient;
  send(message: ExtensionMessage): void;
  disconnect(): void;
}

const STATE_PUSH_DELAY_MS = 30;

/** The service worker's state and the relay connection. */
export class ExtensionRuntime {
  private connection: RelayClient;
  private readonly tabs = new Map<number, { session: TabSession; link: TabLink }>();
  private readonly listeners = new Set<(state: PopupState) => void>();
  private readonly journal = createIdbSubscriptionJournal();
  private notice: string | null = null;
  private activityDirty = false;
  private activitySaving = false;
  private statePush: ReturnType<typeof setTimeout> | null = null;

  private constructor(
    private settings: store.Settings,
    private readonly sites: Map<string, SiteGrant>,
    private readonly activity: Record<string, ActivityItem[]>,
  ) {
    this.connection = this.connect(null);
  }

  /** Loads what storage keeps and starts connecting. */
  static async boot(): Promise<ExtensionRuntime> {
    await store.restrictStorage();
    const [settings, sites, activity] = await Promise.all([
      store.loadSettings(),
      store.loadSites(),
      store.loadActivity(),
    ]);
    return new ExtensionRuntime(settings, new Map(sites.map((site) => [site.origin, site])), activity);
  }

  /** The site's grant, when the person allowed it. */
  site(origin: string): SiteGrant | undefined {
    return this.sites.get(origin);
  }

  /** Every allowed site. */
  allSites(): SiteGrant[] {
    return [...this.sites.values()];
  }

  /** A granted tab's page attached (or attached again after a reset). */
  async attachTab(link: TabLink, attach: PageAttach): Promise<TabSession | null> {
    const site = this.sites.get(link.origin);
    if (!site) return null;
    const kept = (await store.loadKeptTabs())[String(link.tabId)];
    this.tabs.get(link.tabId)?.session.close();
    const session = new TabSession(
      {
        tabId: link.tabId,
        origin: link.origin,
        url: link.url,
        grant: site.grant,
        keptSessionId: kept?.origin === link.origin ? kept.sessionId : null,
        client: link.client,
        send: (message) => link.send(message),
        visibleCapture: visibleCaptureFor(link.tabId),
        journal: this.journal,
        onChange: () => this.changed(),
        onSessionId: (sessionId) => void store.keepTab(link.tabId, { origin: link.origin, sessionId }),
        onActivity: (items) => this.record(link.origin, items),
      },
      attach,
    );
    this.tabs.set(link.tabId, { session, link });
    session.open(this.connection);
    this.changed();
    return session;
  }

  /** A tab's Port closed (reload, navigation, or the tab is closing): its session closes, its id is kept. */
  linkClosed(tabId: number, session: TabSession | null): void {
    const entry = this.tabs.get(tabId);
    if (!entry || entry.session !== session) return;
    entry.session.close();
    this.tabs.delete(tabId);
    this.changed();
  }

  /** The tab closed for good: its kept id goes too. */
  tabRemoved(tabId: number): void {
    this.tabs.get(tabId)?.session.close();
    this.tabs.delete(tabId);
    void store.keepTab(tabId, null);
    this.changed();
  }

  /**
   * Offers a pairing code (typed in the popup, or taken from a pasted link).
   * Pairing again while paired forgets the old credential first: a stored
   * credential always wins over a code.
   */
  async pair(code: string): Promise<void> {
    this.notice = null;
    if (this.connection.status().state === 'unpaired') return this.connection.pair(code);
    this.connection.close();
    await store.chromeCredentialStore.clear();
    this.connection = this.connect(code);
    for (const { session } of this.tabs.values()) session.open(this.connection);
    this.changed();
  }

  /**
   * Switches to another relay address (and bearer token, for a vendor's relay:
   * a string sets it, null removes it, undefined keeps it): a new connection,
   * every tab's session reopened on it.
   */
  async setRelayUrl(url: string, token?: string | null): Promise<void> {
    if (!/^wss?:\/\/[^\s]+$/.test(url)) return this.tell('The relay address must look like ws://127.0.0.1:7391/relay.');
    const { relayToken: kept, ...rest } = this.settings;
    const relayToken = token === undefined ? kept : (token ?? undefined);
    this.settings = { ...rest, relayUrl: url, ...(relayToken ? { relayToken } : {}) };
    await store.saveSettings(this.settings);
    this.connection.close();
    this.connection = this.connect(null);
    for (const { session } of this.tabs.values()) session.open(this.connection);
    this.tell(null);
  }

  /** Adds a site (or changes its grant): the content script is registered for it. */
  async allowSite(origin: string, grant: SiteGrant['grant']): Promise<void> {
    const existing = this.sites.get(origin);
    this.sites.set(origin, { origin, grant, addedAt: existing?.addedAt ?? new Date().toISOString() });
    await store.saveSites(this.allSites());
    await syncSiteScripts([...this.sites.keys()]);
    if (!existing) await injectIntoOpenTabs(origin);
    for (const { session } of this.tabs.values()) if (session.origin === origin) session.setGrant(grant);
    this.changed();
  }

  /** Revokes a site: its tabs' sessions close and their links drop. */
  async revokeSite(origin: string): Promise<void> {
    this.sites.delete(origin);
    await store.saveSites(this.allSites());
    await syncSiteScripts([...this.sites.keys()]);
    await releaseHostPermission(origin, this.allSites());
    for (const [tabId, { session, link }] of [...this.tabs]) {
      if (session.origin !== origin) continue;
      session.close();
      this.tabs.delete(tabId);
      link.disconnect();
    }
    delete this.activity[origin];
    this.saveActivitySoon();
    this.changed();
  }

  /** Ends the MCP attachments using one session. */
  detach(sessionId: string): void {
    for (const { session } of this.tabs.values()) if (session.view().sessionId === sessionId) session.detach();
  }

  /** Shows a message in the popup (null clears it). */
  tell(notice: string | null): void {
    this.notice = notice;
    this.changed();
  }

  /** Hears every state change (the popup's Port). */
  onState(listener: (state: PopupState) => void): () => void {
    this.listeners.add(listener);
    listener(this.state());
    return () => this.listeners.delete(listener);
  }

  /** What the popup shows. */
  state(): PopupState {
    const { state, message } = this.connection.status();
    return {
      relay: {
        state,
        message,
        url: this.settings.relayUrl,
        paired: state !== 'unpaired' && state !== 'pairing',
        token: this.settings.relayToken !== undefined,
      },
      defaultGrant: this.settings.defaultGrant,
      sites: this.allSites(),
      sessions: [...this.tabs.values()].map(({ session }) => session.view()),
      activity: { ...this.activity },
      notice: this.notice,
    };
  }

  private connect(pairCode: string | null): RelayClient {
    const connection = new RelayClient({
      url: this.settings.relayUrl,
      relayToken: this.settings.relayToken ?? null,
      webSocket: WebSocket,
      credentials: store.chromeCredentialStore,
      agent: { kind: 'extension', version: BRIDGE_VERSION },
      pairCode,
      onStatus: () => {
        for (const { session } of this.tabs.values()) session.pushStatus();
        this.changed();
      },
      onGrantProposed: (grant) => {
        this.settings = store.withDefaultGrant(this.settings, grant);
        void store.saveSettings(this.settings).catch(() => undefined);
        this.changed();
      },
      onAttachmentEnded: (attachmentId) => {
        for (const { session } of this.tabs.values()) session.attachmentEnded(attachmentId);
      },
    });
    connection.start();
    return connection;
  }

  private record(origin: string, items: ActivityItem[]): void {
    this.activity[origin] = pushActivity(this.activity[origin] ?? [], items);
    this.saveActivitySoon();
    this.changed();
  }

  /** Writes at once, one write at a time: a service worker may be stopped any moment. */
  private saveActivitySoon(): void {
    this.activityDirty = true;
    if (this.activitySaving) return;
    this.activitySaving = true;
    void this.flushActivity();
  }

  private async flushActivity(): Promise<void> {
    while (this.activityDirty) {
      this.activityDirty = false;
      await store.saveActivity(this.activity).catch(() => undefined);
    }
    this.activitySaving = false;
  }

  private changed(): void {
    if (this.statePush !== null || this.listeners.size === 0) return;
    this.statePush = setTimeout(() => {
      this.statePush = null;
      const state = this.state();
      for (const listener of this.listeners) listener(state);
    }, STATE_PUSH_DELAY_MS);
  }
}
