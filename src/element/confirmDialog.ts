/**
 * The confirmation dialog: an overlay inside the element's own box naming the
 * control, its target and the client, with Decline (focused first) and
 * Approve. Escape declines.
 */
import { html, type TemplateResult } from 'lit';
import type { PendingConfirmation } from './confirmQueue.js';
import { durationLabel, targetLabel } from './format.js';

function onKeydown(event: KeyboardEvent, answer: (approved: boolean) => void): void {
  if (event.key !== 'Escape') return;
  event.preventDefault();
  answer(false);
}

/** The dialog for the question shown now; `more` counts the questions after it. */
export function renderConfirmDialog(
  pending: PendingConfirmation,
  more: number,
  answer: (approved: boolean) => void,
): TemplateResult {
  const { controlId, target, clientName } = pending.question;
  return html`<div class="overlay" @keydown=${(e: KeyboardEvent) => onKeydown(e, answer)}>
    <div
      part="confirm"
      class="dialog"
      role="alertdialog"
      aria-modal="true"
      aria-labelledby="confirm-title"
      aria-describedby="confirm-body"
      data-id=${pending.id}
    >
      <h2 id="confirm-title">Confirm trade</h2>
      <div id="confirm-body">
        <p><strong>${clientName || 'An MCP client'}</strong> asks to run</p>
        <p class="mono"><strong>${controlId}</strong> on ${targetLabel(target)}</p>
        <p class="hint">Declined automatically after ${durationLabel(pending.timeoutMs)}.</p>
        ${more > 0 ? html`<p class="hint">${more} more waiting.</p>` : null}
      </div>
      <div class="countdown" style="animation-duration:${pending.timeoutMs}ms" aria-hidden="true"></div>
      <div class="actions">
        <button type="button" class="decline" @click=${() => answer(false)}>Decline</button>
        <button type="button" class="approve" @click=${() => answer(true)}>Approve</button>
      </div>
    </div>
  </div>`;
}
