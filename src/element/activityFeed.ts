/**
 * The activity feed: recent calls, newest first, in a box that scrolls inside
 * the element instead of growing it. Rows are keyed by entry, so a new call
 * inserts one row instead of rewriting every row below it.
 */
import { html, type TemplateResult } from 'lit';
import { repeat } from 'lit/directives/repeat.js';
import type { ActivityEntry } from '../sdk/types.js';
import { durationLabel, targetLabel, timeLabel } from './format.js';

function row(entry: ActivityEntry): TemplateResult {
  const ok = entry.outcome === 'ok';
  return html`<li>
    <time datetime=${entry.at}>${timeLabel(entry.at)}</time>
    <span class="control mono" title=${entry.controlId}>${entry.controlId}</span>
    <span class="outcome mono" data-ok=${ok ? 'true' : 'false'}>${entry.outcome}</span>
    <span class="meta">
      ${entry.clientName || 'unnamed client'} · ${targetLabel(entry.target)} · ${durationLabel(entry.durationMs)}
    </span>
  </li>`;
}

/** The feed section. */
export function renderFeed(entries: readonly ActivityEntry[]): TemplateResult {
  return html`<section part="feed" class="feed" aria-labelledby="feed-label">
    <h2 id="feed-label">Activity</h2>
    ${
      entries.length === 0
        ? html`<p class="empty">No MCP calls yet.</p>`
        : html`<ol tabindex="0" aria-labelledby="feed-label">
            ${repeat(entries, (entry) => entry, row)}
          </ol>`
    }
  </section>`;
}
