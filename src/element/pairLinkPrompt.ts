/**
 * A pairing link opened in a tab that was already paired (SPEC §9): the grant
 * it proposes, shown to the person, applied only when they accept; or, when
 * its code was expired or used, why and the command that prints a fresh one.
 * A link is never dropped without a word.
 */
import { html, type TemplateResult } from 'lit';
import type { PairLinkResult } from '../bridge/page/bridgeTypes.js';
import type { Grant } from '../protocol/policy.js';
import { PAIR_COMMAND } from './pairCode.js';

const LABELS: Record<Grant, string> = { read: 'Read', write: 'Write', trade: 'Trade' };

/** What the prompt shows and where the person's answer goes. */
export interface PairLinkView {
  result: PairLinkResult;
  /** The tab's grant now. */
  current: Grant;
  /** Whether the server trades at all (`--enable-trading`), once known. */
  tradingEnabled: boolean | undefined;
  accept(grant: Grant): void;
  dismiss(): void;
}

function tradingNote(view: PairLinkView, grant: Grant): TemplateResult | null {
  if (grant !== 'trade' || view.tradingEnabled !== false) return null;
  return html`<p class="hint">
    The server was started without <code>--enable-trading</code>: trade-class controls stay refused whatever this tab
    allows.
  </p>`;
}

/** The prompt. */
export function renderPairLink(view: PairLinkView): TemplateResult {
  const { result, current } = view;
  if (result.grant === null) {
    return html`<section part="pair-link" class="pair-link" role="alert" aria-label="Pairing link">
      <p>This tab is already paired, and the pairing link did not work: it was expired or already used.</p>
      <p class="hint">For a fresh link run <code>${PAIR_COMMAND}</code>.</p>
      <div class="actions"><button type="button" class="dismiss" @click=${view.dismiss}>OK</button></div>
    </section>`;
  }
  const grant = result.grant;
  if (grant === current) {
    return html`<section part="pair-link" class="pair-link" role="status" aria-label="Pairing link">
      <p>
        This tab is already paired; the pairing link proposes its current access, ${LABELS[grant]}. Nothing changed.
      </p>
      <div class="actions"><button type="button" class="dismiss" @click=${view.dismiss}>OK</button></div>
    </section>`;
  }
  return html`<section part="pair-link" class="pair-link" role="alertdialog" aria-labelledby="pair-link-text">
    <p id="pair-link-text">
      A pairing link proposes <strong>${LABELS[grant]}</strong> access for MCP clients in this tab (now
      ${LABELS[current]}).
    </p>
    ${tradingNote(view, grant)}
    <div class="actions">
      <button type="button" class="accept" @click=${() => view.accept(grant)}>Switch to ${LABELS[grant]}</button>
      <button type="button" class="decline" @click=${view.dismiss}>Keep ${LABELS[current]}</button>
    </div>
  </section>`;
}
