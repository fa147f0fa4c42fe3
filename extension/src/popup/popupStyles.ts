/**
 * The popup's styles: the web component's palette (SPEC §10), sized for a
 * browser-action popup.
 */
import { css } from 'lit';

/** Styles of `<tradescript-popup>`. */
export const popupStyles = css`
  :host {
    --bg: #111827;
    --card: #172033;
    --fg: #e5e7eb;
    --muted: #9ca3af;
    --border: #2b3648;
    --accent: #3b82f6;
    --ok: #22c55e;
    --warn: #f59e0b;
    --danger: #ef4444;
    --mono: ui-monospace, 'DejaVu Sans Mono', monospace;
    display: flex;
    flex-direction: column;
    gap: 10px;
    box-sizing: border-box;
    inline-size: 380px;
    padding: 12px;
    background: var(--bg);
    color: var(--fg);
    font:
      13px/1.4 system-ui,
      'DejaVu Sans',
      sans-serif;
  }
  *,
  *::before,
  *::after {
    box-sizing: border-box;
  }
  header,
  .row {
    display: flex;
    align-items: center;
    gap: 8px;
  }
  header {
    justify-content: space-between;
  }
  .brand {
    display: flex;
    align-items: center;
    gap: 8px;
    font-weight: 650;
    font-size: 14px;
  }
  .logo {
    inline-size: 18px;
    block-size: 18px;
    border-radius: 5px;
    background: linear-gradient(135deg, var(--accent), var(--ok));
  }
  .pill {
    padding: 2px 10px;
    border-radius: 999px;
    border: 1px solid var(--border);
    font-size: 12px;
    color: var(--muted);
  }
  .pill.paired {
    color: var(--ok);
    border-color: color-mix(in srgb, var(--ok) 50%, transparent);
  }
  .pill.unpaired,
  .pill.disconnected {
    color: var(--warn);
    border-color: color-mix(in srgb, var(--warn) 50%, transparent);
  }
  h2,
  h3 {
    margin: 0 0 6px;
    font-size: 11px;
    font-weight: 600;
    letter-spacing: 0.05em;
    text-transform: uppercase;
    color: var(--muted);
  }
  h3 {
    margin: 10px 0 4px;
  }
  section,
  .card {
    display: block;
  }
  .card {
    padding: 10px;
    border: 1px solid var(--border);
    border-radius: 8px;
    background: var(--card);
  }
  .sites {
    display: flex;
    flex-direction: column;
    gap: 8px;
  }
  .sites > h2 {
    margin-bottom: 0;
  }
  .origin {
    flex: 1;
    min-inline-size: 0;
    overflow: hidden;
    text-overflow: ellipsis;
    white-space: nowrap;
    font-family: var(--mono);
    font-size: 12px;
  }
  form {
    display: flex;
    gap: 6px;
  }
  input {
    flex: 1;
    min-inline-size: 0;
    padding: 5px 8px;
    border: 1px solid var(--border);
    border-radius: 6px;
    background: var(--bg);
    color: var(--fg);
    font: inherit;
  }
  input:focus-visible,
  button:focus-visible {
    outline: 2px solid var(--accent);
    outline-offset: 1px;
  }
  button {
    padding: 4px 10px;
    border: 1px solid var(--border);
    border-radius: 6px;
    background: transparent;
    color: var(--fg);
    font: inherit;
    cursor: pointer;
    white-space: nowrap;
  }
  button.primary {
    background: var(--accent);
    border-color: var(--accent);
    color: white;
  }
  button.quiet {
    border-color: transparent;
    color: var(--muted);
    padding: 2px 6px;
  }
  button.danger:hover {
    color: var(--danger);
  }
  .grant {
    display: inline-flex;
    margin-block-start: 8px;
    border: 1px solid var(--border);
    border-radius: 6px;
    overflow: hidden;
  }
  .grant button {
    border: 0;
    border-radius: 0;
    padding: 3px 12px;
    color: var(--muted);
  }
  .grant button + button {
    border-inline-start: 1px solid var(--border);
  }
  .grant button[aria-pressed='true'] {
    background: color-mix(in srgb, var(--accent) 30%, transparent);
    color: var(--fg);
  }
  .grant button.g-trade[aria-pressed='true'] {
    background: color-mix(in srgb, var(--danger) 35%, transparent);
  }
  ul,
  ol {
    margin: 0;
    padding: 0;
    list-style: none;
  }
  .sessions {
    margin-block-start: 8px;
    display: flex;
    flex-direction: column;
    gap: 6px;
  }
  .session {
    padding: 6px 8px;
    border-radius: 6px;
    background: var(--bg);
  }
  .session .title {
    flex: 1;
    overflow: hidden;
    text-overflow: ellipsis;
    white-space: nowrap;
  }
  .dot {
    inline-size: 8px;
    block-size: 8px;
    border-radius: 50%;
    background: var(--muted);
    flex: none;
  }
  .dot.on {
    background: var(--ok);
  }
  .env {
    font-size: 11px;
    padding: 0 6px;
    border-radius: 4px;
    border: 1px solid var(--border);
    color: var(--muted);
  }
  .env.live {
    color: var(--danger);
  }
  .sid,
  code {
    font-family: var(--mono);
    font-size: 11px;
  }
  .sid {
    display: block;
    color: var(--muted);
    margin-block-start: 2px;
  }
  .clients {
    font-size: 12px;
    color: var(--muted);
  }
  .activity li {
    display: grid;
    grid-template-columns: 58px 1fr auto 48px;
    gap: 6px;
    padding: 2px 0;
    font-size: 12px;
    border-block-end: 1px solid color-mix(in srgb, var(--border) 50%, transparent);
  }
  .activity .time,
  .activity .duration {
    color: var(--muted);
    font-variant-numeric: tabular-nums;
  }
  .activity .duration {
    text-align: end;
  }
  .activity .control {
    overflow: hidden;
    text-overflow: ellipsis;
    white-space: nowrap;
    font-family: var(--mono);
    font-size: 11px;
  }
  .outcome.ok {
    color: var(--ok);
  }
  .outcome.failed {
    color: var(--danger);
  }
  .hint,
  .message,
  .notice,
  .error {
    margin: 6px 0 0;
    font-size: 12px;
    color: var(--muted);
  }
  .message,
  .notice {
    margin: 0;
    padding: 6px 8px;
    border-radius: 6px;
    background: color-mix(in srgb, var(--warn) 12%, transparent);
    color: var(--fg);
  }
  .error {
    color: var(--danger);
  }
  details.more summary {
    cursor: pointer;
    color: var(--muted);
    font-size: 12px;
  }
  details.more form {
    margin-block-start: 6px;
  }
  .loading {
    padding: 12px;
  }
`;
