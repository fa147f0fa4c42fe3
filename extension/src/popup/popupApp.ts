/**
 * `<tradescript-popup>`: the extension's popup (SPEC §10). Pairs with a code
 * or a pasted pairing link, shows the relay's status, allows sites (the tab it
 * opened over, or one typed in) with a grant, changes or revokes a site's
 * grant, and lists each site's sessions, MCP clients and recent calls.
 * Granting a site asks Chrome for its host permission here, where the click is.
 */
import { html, LitElement, nothing, type TemplateResult } from 'lit';
import { checkPairCode } from '../../../src/element/pairCode.js';
import type { PopupCommand, PopupState } from '../../../src/protocol/wire/extensionLink.js';
import type { Grant } from '../../../src/protocol/index.js';
import { hostPermission, siteOriginOf } from '../../../src/bridge/extension/sw/siteOrigin.js';
import { activeTabOrigin, PopupClient } from './popupClient.js';
import { popupStyles } from './popupStyles.js';
import { renderHeader, renderPairing, renderSite, renderThisTab } from './popupViews.js';

/** The popup element. */
export class TradescriptPopupElement extends LitElement {
  static override styles = popupStyles;
  static override properties = {
    state: { state: true },
    activeOrigin: { state: true },
    pairInput: { state: true },
    pairError: { state: true },
    siteInput: { state: true },
    relayInput: { state: true },
    tokenInput: { state: true },
    localNotice: { state: true },
  };

  declare state: PopupState | null;
  declare activeOrigin: string | null;
  declare pairInput: string;
  declare pairError: string | null;
  declare siteInput: string;
  declare relayInput: string | null;
  /** A vendor relay's bearer token being typed (never shown back once saved). */
  declare tokenInput: string;
  declare localNotice: string | null;
  private readonly client = new PopupClient((state) => {
    this.state = state;
  });

  constructor() {
    super();
    this.state = null;
    this.activeOrigin = null;
    this.pairInput = '';
    this.pairError = null;
    this.siteInput = '';
    this.relayInput = null;
    this.tokenInput = '';
    this.localNotice = null;
  }

  override connectedCallback(): void {
    super.connectedCallback();
    this.client.open();
    void activeTabOrigin().then((origin) => {
      this.activeOrigin = origin;
    });
  }

  override disconnectedCallback(): void {
    super.disconnectedCallback();
    this.client.close();
  }

  override render(): TemplateResult {
    const state = this.state;
    if (!state) return html`<p class="hint loading">Starting…</p>`;
    const allowed = new Set(state.sites.map((site) => site.origin));
    const notice = this.localNotice ?? state.notice;
    return html`${renderHeader(state.relay)}
      ${state.relay.message ? html`<p class="message">${state.relay.message}</p>` : nothing}
      ${
        state.relay.paired
          ? nothing
          : renderPairing(
              this.pairInput,
              this.pairError,
              (v) => (this.pairInput = v),
              () => this.pair(),
            )
      }
      ${
        this.activeOrigin && !allowed.has(this.activeOrigin)
          ? renderThisTab(
              this.activeOrigin,
              state.defaultGrant,
              () => void this.allow(this.activeOrigin ?? '', state.defaultGrant),
            )
          : nothing
      }
      <section class="sites">
        <h2>Sites</h2>
        ${state.sites.length === 0 ? html`<p class="hint">No site is allowed yet: open your terminal and allow it here.</p>` : nothing}
        ${state.sites.map((site) =>
          renderSite({
            site,
            sessions: state.sessions.filter((s) => s.origin === site.origin),
            activity: state.activity[site.origin] ?? [],
            onGrant: (grant) => this.send({ t: 'setGrant', origin: site.origin, grant }),
            onRevoke: () => this.send({ t: 'revokeSite', origin: site.origin }),
          }),
        )}
      </section>
      ${this.renderAddSite(state.defaultGrant)} ${this.renderRelay(state.relay.url)}
      ${notice ? html`<p class="notice" role="alert">${notice}</p>` : nothing}`;
  }

  private renderAddSite(grant: Grant): TemplateResult {
    return html`<details class="more">
      <summary>Add a site by address</summary>
      <form
        @submit=${(event: Event) => {
          event.preventDefault();
          const origin = siteOriginOf(this.siteInput);
          if (!origin) return void (this.localNotice = 'Type a site like https://terminal.example or 127.0.0.1:7392.');
          void this.allow(origin, grant);
        }}
      >
        <input
          name="site"
          placeholder="https://terminal.example"
          .value=${this.siteInput}
          @input=${(event: Event) => (this.siteInput = (event.target as HTMLInputElement).value)}
        />
        <button type="submit" name="add-site">Allow</button>
      </form>
    </details>`;
  }

  private renderRelay(url: string): TemplateResult {
    return html`<details class="more">
      <summary>Relay <code>${url}</code></summary>
      <form
        @submit=${(event: Event) => {
          event.preventDefault();
          const token = this.tokenInput.trim();
          this.send({ t: 'setRelayUrl', url: (this.relayInput ?? url).trim(), ...(token ? { token } : {}) });
          this.tokenInput = '';
        }}
      >
        <input
          name="relay-url"
          .value=${this.relayInput ?? url}
          @input=${(event: Event) => (this.relayInput = (event.target as HTMLInputElement).value)}
        />
        <input
          name="relay-token"
          type="password"
          autocomplete="off"
          placeholder="Bearer token (a vendor's relay only)"
          .value=${this.tokenInput}
          @input=${(event: Event) => (this.tokenInput = (event.target as HTMLInputElement).value)}
        />
        <button type="submit" name="save-relay">Save</button>
      </form>
    </details>`;
  }

  private pair(): void {
    const checked = checkPairCode(this.pairInput);
    if (!checked.ok) return void (this.pairError = checked.message);
    this.pairError = null;
    this.pairInput = '';
    this.send({ t: 'pair', code: checked.code });
  }

  /** Asks Chrome for the site's host permission (the click is the gesture it needs), then allows it. */
  private async allow(origin: string, grant: Grant): Promise<void> {
    const granted = await chrome.permissions.request({ origins: [hostPermission(origin)] }).catch(() => false);
    if (!granted)
      return void (this.localNotice = `Chrome did not grant access to ${origin}, so the extension cannot reach it.`);
    this.siteInput = '';
    this.send({ t: 'allowSite', origin, grant });
  }

  private send(command: PopupCommand): void {
    this.localNotice = this.client.send(command) ? null : 'The extension is restarting; try again in a moment.';
  }
}

customElements.define('tradescript-popup', TradescriptPopupElement);
