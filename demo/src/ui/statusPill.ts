/**
 * The header pill that shows the bridge: state, short session id and the MCP
 * clients attached.
 */
import type { BridgeState, BridgeStatus } from '../../../src/bridge/page/bridgeTypes.js';
import { el, setText } from './dom.js';

const LABELS: Readonly<Record<BridgeState, string>> = {
  disconnected: 'Disconnected',
  connecting: 'Connecting…',
  pairing: 'Pairing…',
  paired: 'Paired',
  unpaired: 'Not paired',
};

/** The bridge status pill. */
export class StatusPill {
  private readonly state = el('span', { class: 'pill-state', attrs: { 'data-testid': 'bridge-state' } });
  private readonly session = el('span', { class: 'pill-session num', attrs: { 'data-testid': 'bridge-session' } });
  private readonly clients = el('span', { class: 'pill-clients', attrs: { 'data-testid': 'bridge-clients' } });

  constructor(private readonly root: HTMLElement) {
    root.replaceChildren(el('span', { class: 'pill-dot' }), this.state, this.session, this.clients);
  }

  /** Runs `open` when the person clicks the pill (it opens the bridge dock). */
  onClick(open: () => void): void {
    this.root.addEventListener('click', open);
  }

  /** Shows a status. */
  show(status: BridgeStatus): void {
    this.root.dataset['state'] = status.state;
    setText(this.state, LABELS[status.state]);
    setText(this.session, status.sessionId ? status.sessionId.slice(0, 8) : '');
    this.session.hidden = !status.sessionId;
    const count = status.attachments.length;
    setText(this.clients, count === 1 ? '1 MCP client' : `${count} MCP clients`);
    this.clients.hidden = status.state !== 'paired';
    this.clients.classList.toggle('active', count > 0);
    const names = status.attachments.map((a) => `${a.clientName} (${a.transport})`);
    this.root.title = [
      `Bridge: ${LABELS[status.state]}`,
      status.sessionId ? `Session ${status.sessionId}` : 'No session yet',
      names.length ? `Attached: ${names.join(', ')}` : 'No MCP client attached',
      ...(status.message ? [status.message] : []),
    ].join('\n');
  }
}
