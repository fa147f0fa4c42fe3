/**
 * The grant for MCP attachments (SPEC §2): read / write / trade as a
 * segmented control. Native radios give the keyboard behaviour for free: Tab
 * reaches the checked one, arrow keys move the choice.
 */
import { html, type TemplateResult } from 'lit';
import type { Grant } from '../protocol/policy.js';

/** The grants, narrowest first. */
export const GRANTS: readonly Grant[] = ['read', 'write', 'trade'];

const LABELS: Record<Grant, string> = { read: 'Read', write: 'Write', trade: 'Trade' };

const NOTES: Record<Grant, string> = {
  read: 'Agents can read context and take snapshots; nothing changes.',
  write: 'Agents can change charts and widgets; no orders.',
  trade: '⚠ Agents can place and cancel orders.',
};

function onChange(event: Event, choose: (grant: Grant) => void): void {
  const value = (event.target as HTMLInputElement).value;
  const grant = GRANTS.find((g) => g === value);
  if (grant !== undefined) choose(grant);
}

/** The grant section; `choose` hears the person's choice. */
export function renderGrant(grant: Grant, choose: (grant: Grant) => void, disabled: boolean): TemplateResult {
  return html`<section part="grant">
    <h2 id="grant-label">MCP access</h2>
    <div class="segments" role="radiogroup" aria-labelledby="grant-label" @change=${(e: Event) => onChange(e, choose)}>
      ${GRANTS.map(
        (g) =>
          html`<input
              type="radio"
              id=${`grant-${g}`}
              name="grant"
              value=${g}
              .checked=${g === grant}
              ?disabled=${disabled}
              aria-describedby="grant-note"
            /><label for=${`grant-${g}`}>${LABELS[g]}</label>`,
      )}
    </div>
    <p id="grant-note" class="grant-note" data-grant=${grant}>${NOTES[grant]}</p>
  </section>`;
}
