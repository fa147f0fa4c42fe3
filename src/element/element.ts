/**
 * `<tradescript-bridge>`: drop-in pairing, status, grant, activity, "detach
 * all" and the opt-in "confirm trades" mode for a terminal (SPEC §10).
 */
import { html, LitElement, type PropertyValues, type TemplateResult } from 'lit';
import { keyed } from 'lit/directives/keyed.js';
import { connectBridge } from '../bridge/index.js';
import type { BridgeHandle, BridgeStatus, ConnectOptions, PairLinkResult } from '../bridge/page/bridgeTypes.js';
import { RELAY_TIMING } from '../protocol/limits.js';
import type { Grant } from '../protocol/policy.js';
import type { TerminalHost } from '../sdk/types.js';
import { renderFeed } from './activityFeed.js';
import { ActivityController } from './activityController.js';
import { renderConfirmDialog } from './confirmDialog.js';
import type { ConfirmGate } from './confirmGate.js';
import { ConfirmQueue, type PendingConfirmation } from './confirmQueue.js';
import { renderConfirmToggle } from './confirmToggle.js';
import { renderDetach } from './detachButton.js';
import { FRAMED_MESSAGE, isFramed, renderFramedRefusal } from './frameGuard.js';
import { renderGrant } from './grantControl.js';
import { checkPairCode, takePairCodeFromUrl } from './pairCode.js';
import { renderPairForm } from './pairForm.js';
import { renderPairLink } from './pairLinkPrompt.js';
import { renderStatus, statusAnnouncement } from './statusView.js';
import { elementStyles } from './styles.js';
import { keepGrant, keptGrant } from './tabStorage.js';
import {
  GRANT_EVENT,
  PAIR_LINK_EVENT,
  STATUS_EVENT,
  type GrantChangeDetail,
  type GrantSource,
  type TradescriptBridgeEventMap,
} from './types.js';

const NOT_CONNECTED: BridgeStatus = { state: 'disconnected', sessionId: null, attachments: [], message: null };

/**
 * The bridge element. Set `host` (a `createTerminalHost` result) and the
 * `relay-url` attribute; once both are present it calls `connectBridge` itself
 * (once; later changes of either are ignored, `close()` ends the session).
 *
 * - Attributes: `relay-url`, `pair-from-url` (read `#pair=CODE` from the
 *   address and remove it from history at once), `allow-framed` (pair and
 *   attach inside a frame too; without it a framed element refuses, SPEC §9).
 * - Properties: `host`, `relayUrl`, `pairCode`, `pairFromUrl`, `confirmGate`, `relayToken`
 *   (a bearer token for a vendor's relay, from the page's own login; a property
 *   only, never an attribute, so it is not written into the DOM)
 *   (from {@link createConfirmGate}, whose `confirm` the page passed to
 *   `createTerminalHost`), `confirmTimeoutMs` (lowers the 20 s window, for
 *   tests), `bridge` (read-only handle), `grant` (read-only).
 * - Events (bubbling, composed): `tradescript-status` (detail: `BridgeStatus`),
 *   `tradescript-grant` (detail: `{grant, source}`), `tradescript-pair-link`
 *   (detail: `PairLinkResult`: a pairing link opened in this paired tab, shown
 *   for the person to accept or decline; show the element if it is hidden).
 * - Parts: `status`, `pair-form`, `pair-link`, `grant`, `confirm-toggle`, `feed`, `detach`, `confirm`.
 * - Custom properties: see `styles.ts` (`--ts-bridge-bg`, `--ts-bridge-fg`,
 *   `--ts-bridge-accent`, `--ts-bridge-danger`, `--ts-bridge-font`, …).
 */
export class TradescriptBridgeElement extends LitElement {
  static override styles = elementStyles;
  static override properties = {
    host: { attribute: false },
    relayUrl: { attribute: 'relay-url' },
    pairCode: { attribute: false },
    relayToken: { attribute: false },
    pairFromUrl: { attribute: 'pair-from-url', type: Boolean },
    allowFramed: { attribute: 'allow-framed', type: Boolean },
    confirmGate: { attribute: false },
    confirmTimeoutMs: { attribute: false },
    status: { state: true },
    grantShown: { state: true },
    pairError: { state: true },
    codeRefused: { state: true },
    announcement: { state: true },
    pairLink: { state: true },
  };

  /** The terminal's host SDK. */
  declare host: TerminalHost | null;
  /** The relay, e.g. `ws://127.0.0.1:7391/relay` (attribute `relay-url`). */
  declare relayUrl: string | null;
  /** A single-use pairing code to offer the bridge. */
  declare pairCode: string | null;
  /** A bearer token for a relay that requires one (cluster mode, SPEC §14). */
  declare relayToken: string | null;
  /** Read `#pair=CODE` from the address (attribute `pair-from-url`). */
  declare pairFromUrl: boolean;
  /** Pair and attach even inside a frame (attribute `allow-framed`); off by default (SPEC §9). */
  declare allowFramed: boolean;
  /** The gate whose `confirm` the page passed to `createTerminalHost`; enables the "confirm trades" checkbox. */
  declare confirmGate: ConfirmGate | null;
  /** How long the person has to answer, at most (and by default) the SDK's 20 s. */
  declare confirmTimeoutMs: number;
  declare private status: BridgeStatus;
  declare private grantShown: Grant;
  declare private pairError: string | null;
  declare private codeRefused: boolean;
  declare private announcement: string;
  /** A pairing link opened while paired, waiting for the person's answer. */
  declare private pairLink: PairLinkResult | null;

  private handle: BridgeHandle | null = null;
  private framedRefusal = false;
  private adopted: TerminalHost | null = null;
  private codeOffered = false;
  private shownConfirmation: number | null = null;
  private unbindGate: (() => void) | null = null;
  private readonly activity = new ActivityController(this);
  private readonly confirmations = new ConfirmQueue(() => this.requestUpdate());

  constructor() {
    super();
    this.host = null;
    this.relayUrl = null;
    this.pairCode = null;
    this.relayToken = null;
    this.pairFromUrl = false;
    this.allowFramed = false;
    this.confirmGate = null;
    this.confirmTimeoutMs = RELAY_TIMING.confirmationTimeoutMs;
    this.status = NOT_CONNECTED;
    this.grantShown = 'write';
    this.pairError = null;
    this.codeRefused = false;
    this.announcement = '';
    this.pairLink = null;
  }

  /** The bridge handle once connected. */
  get bridge(): BridgeHandle | null {
    return this.handle;
  }

  /** The grant MCP attachments have now. */
  get grant(): Grant {
    return this.grantShown;
  }

  /** Closes the session and stops the bridge worker; setting `host` and `relay-url` again does not reconnect. */
  close(): void {
    this.handle?.close();
  }

  override connectedCallback(): void {
    super.connectedCallback();
    if (this.pairFromUrl) this.takeUrlCode();
    // A pairing link opened over this page's own address changes only the fragment: no reload.
    window.addEventListener('hashchange', this.onHashChange);
    this.bindGate();
  }

  override disconnectedCallback(): void {
    super.disconnectedCallback();
    window.removeEventListener('hashchange', this.onHashChange);
    this.unbindGate?.();
    this.unbindGate = null;
    this.confirmations.declineAll();
  }

  protected override willUpdate(changed: PropertyValues): void {
    if (changed.has('pairFromUrl') && this.pairFromUrl) this.takeUrlCode();
    if (changed.has('host')) this.adoptHost();
    if (changed.has('confirmGate')) {
      this.unbindGate?.();
      this.unbindGate = null;
      this.bindGate();
    }
    if (changed.has('pairCode') && this.pairCode !== null && this.handle !== null) this.offerCode(this.pairCode);
    if (changed.has('relayToken') && this.handle !== null) this.handle.setRelayToken(this.relayToken);
    this.connect();
  }

  protected override updated(): void {
    const pending = this.confirmations.current();
    const id = pending?.id ?? null;
    if (id === this.shownConfirmation) return;
    this.shownConfirmation = id;
    if (id !== null) this.renderRoot.querySelector<HTMLButtonElement>('.decline')?.focus({ preventScroll: true });
  }

  protected override render(): TemplateResult {
    const pending = this.confirmations.current();
    return html`<div class="frame" ?inert=${pending !== undefined}>
        ${renderStatus(this.status)} ${this.framedRefusal ? renderFramedRefusal() : null}
        ${this.status.state === 'unpaired' ? this.renderPairForm() : null}
        ${this.pairLink === null ? null : this.renderPairLink(this.pairLink)}
        ${renderGrant(this.grantShown, (grant) => this.setGrant(grant, 'person'), this.host === null)}
        ${renderConfirmToggle(this.confirmGate, (enabled) => this.setConfirmMode(enabled))}
        ${renderFeed(this.activity.entries)}
        ${renderDetach(this.status.attachments.length, this.handle === null ? null : () => this.detachAll())}
      </div>
      <div class="sr-only" role="status" aria-live="polite">${this.announcement}</div>
      ${pending === undefined ? null : this.renderDialog(pending)}`;
  }

  private renderPairForm(): TemplateResult {
    return renderPairForm({
      error: this.pairError,
      refused: this.codeRefused,
      message: this.status.message,
      submit: (value) => this.submitCode(value),
    });
  }

  private renderPairLink(result: PairLinkResult): TemplateResult {
    return renderPairLink({
      result,
      current: this.grantShown,
      tradingEnabled: this.status.tradingEnabled,
      accept: (grant) => {
        this.pairLink = null;
        this.setGrant(grant, 'pairing-link');
        this.announcement = `MCP access is now ${grant}.`;
      },
      dismiss: () => {
        this.pairLink = null;
        this.announcement = `MCP access stays ${this.grantShown}.`;
      },
    });
  }

  /** Keyed by question, so each one gets a fresh dialog (and countdown). */
  private renderDialog(pending: PendingConfirmation): unknown {
    const answer = (approved: boolean): void => this.confirmations.answer(pending.id, approved);
    return keyed(pending.id, renderConfirmDialog(pending, this.confirmations.size - 1, answer));
  }

  private readonly onHashChange = (): void => {
    if (!this.pairFromUrl) return;
    const code = takePairCodeFromUrl(location, history);
    if (code === null) return;
    // Offered at once: the same link opened twice must be answered twice, not lost as "no change".
    if (this.handle !== null) this.offerCode(code);
    else this.pairCode = code;
  };

  private takeUrlCode(): void {
    const code = takePairCodeFromUrl(location, history);
    if (code !== null) this.pairCode = code;
  }

  /** Applies the grant this tab chose before (a reload), then follows the host's activity. */
  private adoptHost(): void {
    if (this.host === this.adopted) return;
    this.adopted = this.host;
    this.activity.follow(this.host);
    if (this.host === null) return;
    const kept = keptGrant();
    if (kept !== null && kept !== this.host.grant) {
      this.host.grant = kept;
      this.emit(GRANT_EVENT, { grant: kept, source: 'restored' } satisfies GrantChangeDetail);
    }
    this.grantShown = this.host.grant;
  }

  private connect(): void {
    if (this.handle !== null || this.host === null || !this.relayUrl) return;
    if (!this.allowFramed && isFramed()) return this.refuseFramed();
    const options: ConnectOptions = {
      relayUrl: this.relayUrl,
      title: document.title,
      onStatus: (status) => this.onStatus(status),
      onGrantProposed: (grant) => this.setGrant(grant, 'pairing-link'),
      // Already paired: the person decides; a refused code is shown too, never dropped.
      onPairLink: (result) => {
        this.codeOffered = false;
        this.pairLink = result;
        this.emit(PAIR_LINK_EVENT, result);
      },
    };
    if (this.relayToken) options.relayToken = this.relayToken;
    if (this.pairCode !== null) {
      options.pairCode = this.pairCode;
      this.codeOffered = true;
    }
    this.handle = connectBridge(this.host, options);
  }

  /** Inside a frame without `allow-framed`: no worker, no socket, no credential read (SPEC §9). */
  private refuseFramed(): void {
    if (this.framedRefusal) return;
    this.framedRefusal = true;
    this.onStatus({ ...NOT_CONNECTED, message: FRAMED_MESSAGE });
  }

  private onStatus(status: BridgeStatus): void {
    if (status.state === 'paired') this.codeRefused = false;
    if (status.state === 'paired' || status.state === 'unpaired') {
      // A code offered and then "unpaired" was refused: expired or already used.
      if (status.state === 'unpaired' && this.codeOffered) this.codeRefused = true;
      this.codeOffered = false;
    }
    this.status = status;
    this.announcement = statusAnnouncement(status);
    this.emit(STATUS_EVENT, status);
  }

  private submitCode(value: string): void {
    const checked = checkPairCode(value);
    this.pairError = checked.ok ? null : checked.message;
    if (!checked.ok) return;
    this.codeRefused = false;
    if (this.handle !== null) this.offerCode(checked.code);
    else this.pairCode = checked.code;
  }

  private offerCode(code: string): void {
    this.codeOffered = true;
    this.handle?.pair(code);
  }

  /** A change applies to the next call: the SDK reads `host.grant` per call, the server hears it at once. */
  private setGrant(grant: Grant, source: GrantSource): void {
    if (this.host === null) return;
    this.host.grant = grant;
    keepGrant(grant);
    this.grantShown = grant;
    this.handle?.updateInfo();
    this.emit(GRANT_EVENT, { grant, source } satisfies GrantChangeDetail);
  }

  private detachAll(): void {
    const count = this.status.attachments.length;
    this.handle?.detachAll();
    this.announcement = `Detached ${count} MCP ${count === 1 ? 'client' : 'clients'}.`;
  }

  private setConfirmMode(enabled: boolean): void {
    if (this.confirmGate !== null) this.confirmGate.enabled = enabled;
  }

  private bindGate(): void {
    const gate = this.confirmGate;
    if (gate === null || !this.isConnected || this.unbindGate !== null) return;
    const unpresent = gate.present((question, signal) =>
      this.confirmations.ask(question, signal, this.confirmTimeoutMs),
    );
    const unlisten = gate.onChange(() => this.requestUpdate());
    this.unbindGate = () => {
      unpresent();
      unlisten();
    };
  }

  private emit<K extends keyof TradescriptBridgeEventMap>(
    type: K,
    detail: TradescriptBridgeEventMap[K]['detail'],
  ): void {
    this.dispatchEvent(new CustomEvent(type, { detail, bubbles: true, composed: true }));
  }
}

declare global {
  interface HTMLElementTagNameMap {
    'tradescript-bridge': TradescriptBridgeElement;
  }
}
