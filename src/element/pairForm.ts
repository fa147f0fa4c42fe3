/**
 * The pairing-code form, shown while the tab is not paired: a pasted code or
 * link, checked before it is offered to the bridge, and the command that
 * prints a fresh link.
 */
import { html, type TemplateResult } from 'lit';
import { PAIR_COMMAND } from './pairCode.js';

/** What the form shows and where its input goes. */
export interface PairFormView {
  /** Why the last input was not a code. */
  error: string | null;
  /** Set when the server refused the last code (expired or used). */
  refused: boolean;
  /** The bridge's message for the person, if any. */
  message: string | null;
  submit(value: string): void;
}

function onSubmit(event: SubmitEvent, submit: (value: string) => void): void {
  event.preventDefault();
  const input = (event.currentTarget as HTMLFormElement).elements.namedItem('code');
  if (input instanceof HTMLInputElement) submit(input.value);
}

function notice(view: PairFormView): TemplateResult {
  if (view.refused) {
    return html`<p id="pair-notice" class="error" role="alert">
      That pairing code was expired or already used. Run <code>${PAIR_COMMAND}</code> for a fresh link.
    </p>`;
  }
  return html`<p id="pair-notice" class="hint">
    ${view.message ?? 'Not paired yet.'} Run <code>${PAIR_COMMAND}</code>, then open its link or paste its code.
  </p>`;
}

/** The form. */
export function renderPairForm(view: PairFormView): TemplateResult {
  return html`<form part="pair-form" class="pair-form" @submit=${(e: SubmitEvent) => onSubmit(e, view.submit)}>
    <label for="pair-code">Pairing code</label>
    <input
      id="pair-code"
      name="code"
      autocomplete="off"
      spellcheck="false"
      placeholder="ABCD-2345"
      aria-invalid=${view.error !== null ? 'true' : 'false'}
      aria-describedby="pair-notice"
    />
    <button type="submit">Pair</button>
    ${view.error !== null ? html`<p id="pair-notice" class="error" role="alert">${view.error}</p>` : notice(view)}
  </form>`;
}
