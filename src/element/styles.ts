/**
 * The element's shadow styles. Theming goes through these custom properties
 * (set them on `tradescript-bridge` or any ancestor) and the parts listed in
 * the element's JSDoc:
 *
 * | property | default | what |
 * | --- | --- | --- |
 * | `--ts-bridge-width` | `22rem` | the element's fixed inline size |
 * | `--ts-bridge-height` | `26rem` | the element's fixed block size |
 * | `--ts-bridge-bg` | `#111827` | background |
 * | `--ts-bridge-fg` | `#e5e7eb` | text |
 * | `--ts-bridge-muted` | `#9ca3af` | secondary text |
 * | `--ts-bridge-border` | `#374151` | borders and separators |
 * | `--ts-bridge-accent` | `#3b82f6` | selection and focus outlines |
 * | `--ts-bridge-ok` | `#22c55e` | paired, successful calls |
 * | `--ts-bridge-danger` | `#ef4444` | trade grant, failures, detach |
 * | `--ts-bridge-font` | `system-ui, sans-serif` | font family |
 * | `--ts-bridge-font-size` | `13px` | base font size |
 * | `--ts-bridge-mono` | `ui-monospace, monospace` | ids and codes |
 * | `--ts-bridge-radius` | `6px` | corner radius |
 * | `--ts-bridge-overlay` | `rgb(0 0 0 / 0.6)` | behind the confirmation dialog |
 */
import { css } from 'lit';

/** The styles of `<tradescript-bridge>`. */
export const elementStyles = css`
  :host {
    --_bg: var(--ts-bridge-bg, #111827);
    --_fg: var(--ts-bridge-fg, #e5e7eb);
    --_muted: var(--ts-bridge-muted, #9ca3af);
    --_border: var(--ts-bridge-border, #374151);
    --_accent: var(--ts-bridge-accent, #3b82f6);
    --_ok: var(--ts-bridge-ok, #22c55e);
    --_danger: var(--ts-bridge-danger, #ef4444);
    --_radius: var(--ts-bridge-radius, 6px);
    --_mono: var(--ts-bridge-mono, ui-monospace, monospace);
    display: block;
    position: relative;
    box-sizing: border-box;
    inline-size: var(--ts-bridge-width, 22rem);
    block-size: var(--ts-bridge-height, 26rem);
    /* The box never depends on content, so the host page never shifts. */
    contain: strict;
    overflow: hidden;
    background: var(--_bg);
    color: var(--_fg);
    font-family: var(--ts-bridge-font, system-ui, sans-serif);
    font-size: var(--ts-bridge-font-size, 13px);
    line-height: 1.35;
    border: 1px solid var(--_border);
    border-radius: var(--_radius);
  }
  :host([hidden]) {
    display: none;
  }
  *,
  *::before,
  *::after {
    box-sizing: border-box;
  }
  .frame {
    display: flex;
    flex-direction: column;
    gap: 0.5rem;
    block-size: 100%;
    padding: 0.625rem;
  }
  section {
    flex: none;
  }
  h2 {
    margin: 0 0 0.25rem;
    font-size: 0.75em;
    font-weight: 600;
    letter-spacing: 0.04em;
    text-transform: uppercase;
    color: var(--_muted);
  }
  code,
  .mono {
    font-family: var(--_mono);
  }
  code {
    white-space: nowrap;
  }
  button,
  input {
    font: inherit;
    color: inherit;
  }
  button {
    cursor: pointer;
    border: 1px solid var(--_border);
    border-radius: var(--_radius);
    background: transparent;
    padding: 0.3rem 0.7rem;
  }
  button:disabled {
    cursor: default;
    opacity: 0.5;
  }
  :focus-visible {
    outline: 2px solid var(--_accent);
    outline-offset: 2px;
  }
  .sr-only {
    position: absolute;
    inline-size: 1px;
    block-size: 1px;
    overflow: hidden;
    clip-path: inset(50%);
    white-space: nowrap;
  }

  /* Status */
  .status-line {
    display: flex;
    align-items: center;
    gap: 0.4rem;
    font-weight: 600;
  }
  .dot {
    inline-size: 0.6rem;
    block-size: 0.6rem;
    border-radius: 50%;
    background: var(--_muted);
  }
  .dot[data-state='paired'] {
    background: var(--_ok);
  }
  .dot[data-state='unpaired'],
  .dot[data-state='disconnected'] {
    background: var(--_danger);
  }
  .session,
  .clients {
    color: var(--_muted);
    font-weight: 400;
    white-space: nowrap;
    overflow: hidden;
    text-overflow: ellipsis;
  }

  .trading {
    color: var(--_muted);
  }
  .trading[data-trading='on'] {
    color: var(--_danger);
  }
  .message {
    margin: 0.3rem 0 0;
  }
  .message code,
  .pair-link code {
    white-space: normal;
    overflow-wrap: anywhere;
  }

  /* A pairing link in a paired tab */
  .pair-link {
    border: 1px solid var(--_accent);
    border-radius: var(--_radius);
    padding: 0.5rem 0.6rem;
  }
  .pair-link p {
    margin: 0 0 0.4rem;
  }
  .pair-link .actions {
    display: flex;
    gap: 0.4rem;
    flex-wrap: wrap;
  }

  /* Pairing form */
  .pair-form {
    display: grid;
    grid-template-columns: 1fr auto;
    gap: 0.3rem 0.4rem;
  }
  .pair-form label {
    grid-column: 1 / -1;
  }
  .pair-form input {
    min-inline-size: 0;
    padding: 0.3rem 0.5rem;
    border: 1px solid var(--_border);
    border-radius: var(--_radius);
    background: transparent;
    font-family: var(--_mono);
    text-transform: uppercase;
  }
  .pair-form input[aria-invalid='true'] {
    border-color: var(--_danger);
  }
  .hint,
  .error {
    grid-column: 1 / -1;
    margin: 0;
    font-size: 0.9em;
    color: var(--_muted);
  }
  .error {
    color: var(--_danger);
  }

  /* Grant */
  .segments {
    display: grid;
    grid-template-columns: repeat(3, 1fr);
    border: 1px solid var(--_border);
    border-radius: var(--_radius);
    overflow: hidden;
  }
  .segments input {
    position: absolute;
    opacity: 0;
    pointer-events: none;
  }
  .segments label {
    padding: 0.3rem 0;
    text-align: center;
    cursor: pointer;
    border-inline-start: 1px solid var(--_border);
  }
  .segments label:first-of-type {
    border-inline-start: none;
  }
  .segments input:checked + label {
    background: var(--_accent);
    color: #fff;
    font-weight: 600;
  }
  .segments input[value='trade']:checked + label {
    background: var(--_danger);
  }
  .segments input:focus-visible + label {
    outline: 2px solid var(--_accent);
    outline-offset: -2px;
  }
  .segments input:disabled + label {
    cursor: default;
    opacity: 0.5;
  }
  .grant-note {
    margin: 0.25rem 0 0;
    min-block-size: 1.35em;
    font-size: 0.9em;
    color: var(--_muted);
  }
  .grant-note[data-grant='trade'] {
    color: var(--_danger);
    font-weight: 600;
  }
  .confirm-toggle {
    display: flex;
    align-items: center;
    gap: 0.4rem;
  }

  /* Activity feed */
  .feed {
    flex: 1 1 0;
    min-block-size: 0;
    display: flex;
    flex-direction: column;
  }
  .feed ol {
    flex: 1 1 0;
    min-block-size: 0;
    margin: 0;
    padding: 0;
    list-style: none;
    overflow-y: auto;
    border-block-start: 1px solid var(--_border);
  }
  .feed li {
    /* Rows scrolled out of view are not laid out or painted. */
    content-visibility: auto;
    contain-intrinsic-block-size: auto 2.6em;
    display: grid;
    grid-template-columns: auto 1fr auto;
    gap: 0 0.5rem;
    padding: 0.2rem 0;
    border-block-end: 1px solid var(--_border);
    font-size: 0.92em;
  }
  .feed .control {
    overflow: hidden;
    text-overflow: ellipsis;
    white-space: nowrap;
  }
  .feed .meta {
    grid-column: 2 / -1;
    color: var(--_muted);
    overflow: hidden;
    text-overflow: ellipsis;
    white-space: nowrap;
  }
  .feed time {
    color: var(--_muted);
  }
  .outcome[data-ok='true'] {
    color: var(--_ok);
  }
  .outcome[data-ok='false'] {
    color: var(--_danger);
  }
  .empty {
    color: var(--_muted);
    margin: 0.25rem 0 0;
  }

  /* Footer */
  footer {
    flex: none;
    display: flex;
    justify-content: flex-end;
  }
  .detach {
    border-color: var(--_danger);
    color: var(--_danger);
  }

  /* Confirmation dialog: an overlay inside the element's own box. */
  .overlay {
    position: absolute;
    inset: 0;
    display: grid;
    place-items: center;
    padding: 0.75rem;
    background: var(--ts-bridge-overlay, rgb(0 0 0 / 0.6));
  }
  .dialog {
    inline-size: 100%;
    padding: 0.75rem;
    border: 1px solid var(--_danger);
    border-radius: var(--_radius);
    background: var(--_bg);
  }
  .dialog h2 {
    color: var(--_danger);
    font-size: 0.9em;
  }
  .dialog p {
    margin: 0.3rem 0;
    overflow-wrap: anywhere;
  }
  .countdown {
    block-size: 3px;
    background: var(--_danger);
    transform-origin: left;
    animation: countdown linear forwards;
  }
  @keyframes countdown {
    to {
      transform: scaleX(0);
    }
  }
  .actions {
    display: flex;
    justify-content: flex-end;
    gap: 0.5rem;
    margin-block-start: 0.5rem;
  }
  .approve {
    background: var(--_danger);
    border-color: var(--_danger);
    color: #fff;
  }
`;
