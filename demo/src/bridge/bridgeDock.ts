/**
 * The terminal's `<tradescript-bridge>`: the element does pairing, status,
 * the grant, the activity feed, "detach all" and "confirm trades"; the page
 * hands it the host and the relay address (from `/tradescript-config.json`),
 * and keeps the header in step with it: the status pill and pairing banner
 * follow `tradescript-status`, the access button follows `tradescript-grant`.
 *
 * The element sits in a dock that opens from the header and is closed by
 * default (see quietBridgeElement.ts for why a closed dock renders nothing);
 * a confirmation question, or a pairing link opened in this paired tab, opens it.
 */
import type { BridgeHandle, BridgeStatus } from '../../../src/bridge/page/bridgeTypes.js';
import {
  GRANT_EVENT,
  PAIR_LINK_EVENT,
  STATUS_EVENT,
  type ConfirmGate,
  type TradescriptBridgeEventMap,
} from '../../../src/element/index.js';
import type { TerminalHost } from '../../../src/sdk/index.js';
import { showDock, showGrant, wireDock, type DockChrome } from './dockChrome.js';
import { loadConfig } from './pairing.js';
import type { QuietBridgeElement } from './quietBridgeElement.js';

type StatusEvent = TradescriptBridgeEventMap[typeof STATUS_EVENT];
type GrantEvent = TradescriptBridgeEventMap[typeof GRANT_EVENT];

/** What the dock is wired to: the header's parts and the element in the dock. */
export interface BridgeDockParts extends DockChrome {
  element: QuietBridgeElement;
}

/** The page's side of the bridge element. */
export class BridgeDock {
  private last: BridgeStatus = { state: 'connecting', sessionId: null, attachments: [], message: null };

  constructor(private readonly parts: BridgeDockParts) {
    const { element } = parts;
    element.addEventListener(STATUS_EVENT, (event) => this.report((event as StatusEvent).detail));
    element.addEventListener(GRANT_EVENT, (event) => showGrant(parts.toggle, (event as GrantEvent).detail.grant));
    // A pairing link opened in this paired tab waits for the person's answer in the dock.
    element.addEventListener(PAIR_LINK_EVENT, () => this.setOpen(true));
    wireDock(parts, (open) => this.setOpen(open));
    this.report(this.last);
  }

  /** Hands the host and the confirm gate to the element. */
  attach(host: TerminalHost, gate: ConfirmGate): void {
    this.parts.element.confirmGate = this.parts.element.confirmingGate(gate, () => this.setOpen(true));
    this.parts.element.host = host;
    showGrant(this.parts.toggle, host.grant);
  }

  /** Fetches the relay address from this origin; without one the terminal stays unpaired. */
  async start(origin: string): Promise<void> {
    const result = await loadConfig(origin);
    if (result.ok) {
      this.parts.element.relayUrl = result.config.relayUrl;
      return;
    }
    const unused = this.parts.element.pairCode ? ' The pairing code in the link was not used.' : '';
    this.report({ state: 'unpaired', sessionId: null, attachments: [], message: `${result.message}${unused}` });
  }

  /** The bridge's status (the element's handle once connected). */
  status(): BridgeStatus {
    return this.parts.element.bridge?.status() ?? this.last;
  }

  /** The bridge handle, or null while unconnected. */
  bridge(): BridgeHandle | null {
    return this.parts.element.bridge;
  }

  /** Opens or closes the dock. */
  setOpen(open: boolean): void {
    showDock(this.parts, open);
    this.parts.element.setCollapsed(!open);
  }

  private report(status: BridgeStatus): void {
    this.last = status;
    this.parts.pill.show(status);
    this.parts.banner.show(status);
  }
}
