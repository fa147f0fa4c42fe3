/**
 * Framed tabs (SPEC §9): every loopback port is the same site to the browser,
 * so a page on another port can frame the terminal and the framed terminal
 * would read the same stored credential and pair silently, as a second session
 * the framing page steers (its URL flags) and whose controls it can clickjack.
 * The element therefore neither pairs nor attaches inside a frame unless the
 * host opts in with `allow-framed`.
 */
import { html, type TemplateResult } from 'lit';

/** What the element shows, and its status message, when it refuses to run in a frame. */
export const FRAMED_MESSAGE =
  'This terminal is inside a frame of another page, so the bridge does not pair or attach here. Open the terminal in its own tab (a terminal meant to be framed sets allow-framed).';

/** True when `win` is not the top-level window of its tab (a cross-origin top counts too). */
export function isFramed(win: Window = window): boolean {
  try {
    return win.self !== win.top;
  } catch {
    return true;
  }
}

/** The refusal the element shows in a frame. */
export function renderFramedRefusal(): TemplateResult {
  return html`<p part="framed" class="error" role="alert" data-testid="framed">${FRAMED_MESSAGE}</p>`;
}
