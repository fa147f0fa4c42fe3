/**
 * "Detach all": ends every MCP attachment of this session at once; the server
 * closes those MCP connections.
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
