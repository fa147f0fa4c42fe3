/**
 * The status section: where the bridge stands, the session, and the MCP
 * clients attached to it; plus the sentence the live region announces.
 */
import { html, type TemplateResult } from 'lit';
import type { BridgeState, BridgeStatus } from '../bridge/page/bridgeTypes.js';
import { shortId } from './format.js';

const STATE_LABELS: Record<BridgeState, string> = {
  disconnected: 'Disconnected',
  connecting: 'Connecting…',
  pairing: 'Pairing…',
  paired: 'Paired',
  unpaired: 'Not paired',
};

/** `Claude (stdio), Inspector (http)`, or a sentence when there are none. */
function clientsLabel(status: BridgeStatus): string {
  if (status.attachments.length === 0) return 'No MCP clients attached';
  const names = status.attachments.map((a) => `${a.clientName || 'unnamed client'} (${a.transport})`);
  return `MCP clients: ${names.join(', ')}`;
}

/** Text with `backticked` parts as code (messages name commands that way). */
function withCode(text: string): unknown[] {
  return text.split('`').map((part, index) => (index % 2 === 1 ? html`<code>${part}</code>` : part));
}

/** Whether the server trades at all, once a welcome said so. */
function renderTrading(status: BridgeStatus): TemplateResult | null {
  if (status.tradingEnabled === undefined || status.state !== 'paired') return null;
  return status.tradingEnabled
    ? html`<div class="trading" data-trading="on" data-testid="trading">Trading enabled on the server</div>`
    : html`<div class="trading" data-trading="off" data-testid="trading">
        Trading off on the server (start it with <code>--enable-trading</code>)
      </div>`;
}

/** What the live region says about a status. */
export function statusAnnouncement(status: BridgeStatus): string {
  const state = STATE_LABELS[status.state];
  if (status.state !== 'paired') return state;
  const count = status.attachments.length;
  return `${state}. ${count} MCP ${count === 1 ? 'client' : 'clients'} attached.`;
}

/** The status section. */
export function renderStatus(status: BridgeStatus): TemplateResult {
  const clients = clientsLabel(status);
  return html`<section part="status" aria-label="Bridge status">
    <div class="status-line">
      <span class="dot" data-state=${status.state} aria-hidden="true"></span>
      <span data-testid="state">${STATE_LABELS[status.state]}</span>
      ${
        status.sessionId !== null && status.state === 'paired'
          ? html`<span class="session" title=${status.sessionId}>
              session <span class="mono">${shortId(status.sessionId)}</span>
            </span>`
          : null
      }
    </div>
    ${
      status.state === 'paired'
        ? html`<div class="clients" data-testid="clients" title=${clients}>${clients}</div>`
        : null
    }
    ${renderTrading(status)}
    ${
      // Unpaired, the pairing form shows the message with the pair command.
      status.message !== null && status.state !== 'unpaired'
        ? html`<p class="message" data-testid="message">${withCode(status.message)}</p>`
        : null
    }
  </section>`;
}
