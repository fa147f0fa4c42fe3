/**
 * Connects the terminal one of two ways (see bridgeMode.ts): the
 * `<tradescript-bridge>` element in the header's dock, or the TradeScript
 * Chrome extension. Either way the header's pill, banner and access button
 * follow the connection, and the test hooks read the same status shape.
 */
import type { ConfirmGate } from '../../../src/element/index.js';
import type { Target } from '../../../src/protocol/index.js';
import type { TerminalHost } from '../../../src/sdk/index.js';
import type { DemoHooks } from '../testHooks.js';
import { byTestId } from '../ui/dom.js';
import { PairingBanner } from '../ui/pairingBanner.js';
import { StatusPill } from '../ui/statusPill.js';
import { BridgeDock } from './bridgeDock.js';
import type { BridgeMode } from './bridgeMode.js';
import type { DockChrome } from './dockChrome.js';
import { ExtensionDock } from './extensionDock.js';
import type { QuietBridgeElement } from './quietBridgeElement.js';

/** The test hooks that depend on the mode. */
export type BridgeHooks = Pick<
  DemoHooks,
  'bridgeMode' | 'bridgeStatus' | 'bridge' | 'element' | 'dock' | 'extensionStatus'
>;

/** What the terminal hands the bridge. */
export interface BridgeSetup {
  host: TerminalHost;
  /** The element's "confirm trades" gate (the extension has no such mode, so it is unused there). */
  gate: ConfirmGate;
  /** The tab's title as MCP clients see it. */
  title: string;
  /** Chart and widget elements, for the extension's visible-tab capture. */
  locate: (target: Target) => Element | null;
}

function chrome(mode: BridgeMode): DockChrome {
  return {
    dock: byTestId('bridge-dock'),
    toggle: byTestId<HTMLButtonElement>('bridge-dock-toggle'),
    pill: new StatusPill(byTestId('bridge-status')),
    banner: new PairingBanner(byTestId('pairing-banner'), mode),
  };
}

/** Connects through the element (from this origin's config) or offers the host to the extension. */
export function startBridge(mode: BridgeMode, setup: BridgeSetup): BridgeHooks {
  return mode === 'extension' ? startExtension(setup) : startElement(setup);
}

function startElement(setup: BridgeSetup): BridgeHooks {
  const element = byTestId<QuietBridgeElement>('bridge-element');
  const dock = new BridgeDock({ ...chrome('element'), element });
  dock.attach(setup.host, setup.gate);
  void dock.start(window.location.origin);
  return {
    bridgeMode: 'element',
    bridgeStatus: () => dock.status(),
    bridge: () => dock.bridge(),
    element: () => element,
    dock: (open) => dock.setOpen(open),
    extensionStatus: () => null,
  };
}

function startExtension(setup: BridgeSetup): BridgeHooks {
  const dock = new ExtensionDock({ ...chrome('extension'), badge: byTestId('bridge-mode') });
  dock.attach(setup.host, { title: setup.title, locate: setup.locate });
  return {
    bridgeMode: 'extension',
    bridgeStatus: () => dock.status(),
    bridge: () => null,
    element: () => {
      throw new Error('This tab runs through the TradeScript extension: it has no <tradescript-bridge>.');
    },
    dock: (open) => dock.setOpen(open),
    extensionStatus: () => dock.extensionStatus(),
  };
}
