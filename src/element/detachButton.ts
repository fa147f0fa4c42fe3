/**
 * "Detach all": ends every MCP attachment's use of this terminal's host at
 * once (SPEC §2); those clients keep working with other hosts' terminals.
 */
import { html, type TemplateResult } from 'lit';

/** The footer with the button; disabled while nothing is attached. */
export function renderDetach(attached: number, detach: (() => void) | null): TemplateResult {
  return html`<footer>
    <button
      part="detach"
      class="detach"
      type="button"
      ?disabled=${detach === null || attached === 0}
      @click=${() => detach?.()}
    >
      Detach all
    </button>
  </footer>`;
}
