/**
 * The header parts both bridge modes share: the access button (the grant,
 * and it opens the dock), the status pill and the pairing banner.
 */
import type { Grant } from '../../../src/protocol/index.js';
import type { PairingBanner } from '../ui/pairingBanner.js';
import type { StatusPill } from '../ui/statusPill.js';

const GRANT_LABELS: Readonly<Record<Grant, string>> = { read: 'Read only', write: 'Read & write', trade: 'Trade' };

/** The header's bridge parts. */
export interface DockChrome {
  /** The dock's container, shown and hidden. */
  dock: HTMLElement;
  /** The header button that opens the dock and shows the grant. */
  toggle: HTMLButtonElement;
  pill: StatusPill;
  banner: PairingBanner;
}

/** Opens the dock from the button, the pill or the banner's "Enter a code", and closes it on Escape. */
export function wireDock(chrome: DockChrome, setOpen: (open: boolean) => void): void {
  const flip = (): void => setOpen(chrome.dock.hidden);
  chrome.toggle.addEventListener('click', flip);
  chrome.pill.onClick(flip);
  chrome.banner.onEnterCode(() => setOpen(true));
  document.addEventListener('keydown', (event) => {
    if (event.key === 'Escape' && !chrome.dock.hidden) setOpen(false);
  });
}

/** Shows or hides the dock. */
export function showDock(chrome: DockChrome, open: boolean): void {
  chrome.dock.hidden = !open;
  chrome.toggle.setAttribute('aria-expanded', String(open));
}

/** The access button names the grant MCP clients have in this tab. */
export function showGrant(toggle: HTMLButtonElement, grant: Grant): void {
  toggle.dataset['grant'] = grant;
  toggle.textContent = `Agents: ${GRANT_LABELS[grant]}`;
}
