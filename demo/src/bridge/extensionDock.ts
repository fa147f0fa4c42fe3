/**
 * The terminal offered to the TradeScript Chrome extension (`?bridge=extension`)
 * instead of the `<tradescript-bridge>` element: the page calls
 * `exposeToExtension` and never sees a relay address or credential. Pairing,
 * the site's grant and the activity feed live in the extension's popup; the
 * header still shows the link's status (pill, banner), the grant the
 * extension set, and that this tab runs through the extension. The dock
 * explains where the controls are.
 */
import {
  exposeToExtension,
  type ExtensionLink,
  type ExtensionLinkStatus,
} from '../../../src/bridge/extension/page/index.js';
import type { BridgeStatus } from '../../../src/bridge/page/bridgeTypes.js';
import type { Target } from '../../../src/protocol/index.js';
import type { TerminalHost } from '../../../src/sdk/index.js';
import { el } from '../ui/dom.js';
import { showDock, showGrant, wireDock, type DockChrome } from './dockChrome.js';

/** What the extension dock is wired to. */
export interface ExtensionDockParts extends DockChrome {
  /** The header badge that says this tab runs through the extension. */
  badge: HTMLElement;
}

/** How the page offers its host. */
export interface ExposeParts {
  title: string;
  locate: (target: Target) => Element | null;
}

/** The link's status as the page's bridge status (the header and the test hooks read that shape). */
export function toBridgeStatus(status: ExtensionLinkStatus): BridgeStatus {
  const { state, sessionId, attachments, message } = status;
  return { state, sessionId, attachments, message };
}

/** The page's side of the extension link. */
export class ExtensionDock {
  private link: ExtensionLink | null = null;
  private readonly details = el('dl', { class: 'extension-details', attrs: { 'data-testid': 'extension-details' } });

  constructor(private readonly parts: ExtensionDockParts) {
    parts.badge.hidden = false;
    parts.dock.classList.add('extension-dock');
    parts.dock.replaceChildren(
      el('section', { class: 'extension-panel', attrs: { 'data-testid': 'extension-panel' } }, [
        el('h2', { text: 'Through the TradeScript extension' }),
        el('p', {
          text: 'Pair, allow this site, choose its grant and see the activity in the extension’s popup (its toolbar button). This page never holds the relay’s address or credential.',
        }),
        this.details,
      ]),
    );
    parts.toggle.title = 'What attached MCP clients may do here: set in the TradeScript extension’s popup';
    wireDock(parts, (open) => this.setOpen(open));
  }

  /** Offers the host to the extension; the header follows the link from now on. */
  attach(host: TerminalHost, expose: ExposeParts): void {
    showGrant(this.parts.toggle, host.grant);
    this.link = exposeToExtension(host, {
      ...expose,
      onStatus: (status) => this.report(status),
      onGrant: (grant) => showGrant(this.parts.toggle, grant),
    });
    this.report(this.link.status());
  }

  /** The link's status as a bridge status (waiting until attached). */
  status(): BridgeStatus {
    return toBridgeStatus(this.extensionStatus() ?? { ...WAITING, linked: false });
  }

  /** The link's own status, with `linked`; null before {@link attach}. */
  extensionStatus(): ExtensionLinkStatus | null {
    return this.link?.status() ?? null;
  }

  /** Opens or closes the dock. */
  setOpen(open: boolean): void {
    showDock(this.parts, open);
  }

  private report(status: ExtensionLinkStatus): void {
    const bridge = toBridgeStatus(status);
    this.parts.pill.show(bridge);
    this.parts.banner.show(bridge);
    this.parts.badge.dataset['linked'] = String(status.linked);
    const clients = status.attachments.map((a) => a.clientName || 'MCP client');
    this.details.replaceChildren(
      ...row('Link', status.linked ? 'linked' : 'waiting for the extension'),
      ...row('Session', status.sessionId ?? 'none yet'),
      ...row('MCP clients', clients.length > 0 ? clients.join(', ') : 'none attached'),
    );
  }
}

const WAITING: BridgeStatus = { state: 'disconnected', sessionId: null, attachments: [], message: null };

function row(term: string, value: string): HTMLElement[] {
  return [el('dt', { text: term }), el('dd', { text: value })];
}
