/**
 * The "confirm trades" checkbox. It switches the page's confirm gate; without
 * one (the page did not pass `gate.confirm` to `createTerminalHost`) it is
 * disabled and says why.
 */
import { html, type TemplateResult } from 'lit';
import type { ConfirmGate } from './confirmGate.js';

const NO_GATE = 'Needs createConfirmGate(): pass gate.confirm to createTerminalHost and the gate to this element';

/** The checkbox; `toggle` hears the person's choice. */
export function renderConfirmToggle(gate: ConfirmGate | null, toggle: (enabled: boolean) => void): TemplateResult {
  return html`<label part="confirm-toggle" class="confirm-toggle" title=${gate === null ? NO_GATE : ''}>
    <input
      type="checkbox"
      .checked=${gate?.enabled ?? false}
      ?disabled=${gate === null}
      @change=${(e: Event) => toggle((e.target as HTMLInputElement).checked)}
    />
    Confirm trades in this tab
  </label>`;
}
