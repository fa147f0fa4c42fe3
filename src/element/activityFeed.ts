/**
 * The activity feed: recent calls, newest first, in a box that scrolls inside
 * the element instead of growing it.
 */
import { html, type TemplateResult } from 'lit';
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
            ${entries.map(row)}
          </ol>`
    }
  </section>`;
}
