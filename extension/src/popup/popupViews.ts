/**
 * The popup's parts as lit templates: relay status, pairing, the active tab,
 * the allowed sites with their grant, sessions, clients and recent activity.
 * Each takes what it shows and the callbacks it needs; none keeps state.
 */
import { html, nothing, type TemplateResult } from 'lit';
import { durationLabel, timeLabel } from '../../../src/element/format.js';
import { PAIR_COMMAND } from '../../../src/element/pairCode.js';
import type { ActivityItem, PopupState, SiteGrant, TabSessionView } from '../../../src/protocol/wire/extensionLink.js';
import type { Grant } from '../../../src/protocol/index.js';

const GRANTS: readonly Grant[] = ['read', 'write', 'trade'];
/** Activity rows shown per site (the service worker keeps a few more). */
const ACTIVITY_SHOWN = 6;

const STATE_LABEL: Record<PopupState['relay']['state'], string> = {
  paired: 'Connected',
  connecting: 'Connecting…',
  pairing: 'Pairing…',
  disconnected: 'Disconnected',
  unpaired: 'Not paired',
};

/** The header: name and relay status. */
export function renderHeader(relay: PopupState['relay']): TemplateResult {
  return html`<header>
    <div class="brand"><span class="logo" aria-hidden="true"></span>TradeScript MCP</div>
    <span class="pill ${relay.state}" role="status" data-state=${relay.state}>${STATE_LABEL[relay.state]}</span>
  </header>`;
}

/** The pairing form, shown until paired. */
export function renderPairing(
  value: string,
  error: string | null,
  onInput: (v: string) => void,
  onPair: () => void,
): TemplateResult {
  return html`<section class="card pair">
    <h2>Pair with tradescript-mcp</h2>
    <form
      @submit=${(event: Event) => {
        event.preventDefault();
        onPair();
      }}
    >
      <input
        name="pair-code"
        autocomplete="off"
        spellcheck="false"
        placeholder="ABCD-2345 or the pairing link"
        .value=${value}
        @input=${(event: Event) => onInput((event.target as HTMLInputElement).value)}
      />
      <button type="submit" class="primary">Pair</button>
    </form>
    <p class=${error ? 'error' : 'hint'}>${error ?? html`Run <code>${PAIR_COMMAND}</code> for a code.`}</p>
  </section>`;
}

/** "Allow this site" for the tab the popup opened over. */
export function renderThisTab(origin: string, grant: Grant, onAllow: () => void): TemplateResult {
  return html`<section class="card this-tab">
    <h2>This tab</h2>
    <div class="row">
      <span class="origin" title=${origin}>${origin}</span>
      <button class="primary" name="allow-this-site" @click=${onAllow}>Allow this site</button>
    </div>
    <p class="hint">MCP clients get <strong>${grant}</strong> access; change it below at any time.</p>
  </section>`;
}

function grantControl(site: SiteGrant, onGrant: (grant: Grant) => void): TemplateResult {
  return html`<div class="grant" role="group" aria-label="Grant for ${site.origin}">
    ${GRANTS.map(
      (grant) =>
        html`<button
          class="g-${grant}"
          data-grant=${grant}
          aria-pressed=${site.grant === grant ? 'true' : 'false'}
          @click=${() => onGrant(grant)}
        >
          ${grant}
        </button>`,
    )}
  </div>`;
}

function sessionRow(session: TabSessionView): TemplateResult {
  const clients = session.attachments.map((a) => a.clientName || 'MCP client');
  return html`<li class="session" data-session-id=${session.sessionId ?? ''}>
    <div class="row">
      <span
        class="dot ${session.open ? 'on' : 'off'}"
        title=${session.open ? 'session open' : 'session not open'}
      ></span>
      <span class="title" title=${session.title}>${session.title || 'Untitled tab'}</span>
      ${session.environment ? html`<span class="env ${session.environment}">${session.environment}</span>` : nothing}
    </div>
    <code class="sid">${session.sessionId ?? 'no session yet'}</code>
    <div class="clients">${clients.length > 0 ? clients.join(', ') : 'No MCP client attached'}</div>
  </li>`;
}

function activityList(items: readonly ActivityItem[]): TemplateResult {
  if (items.length === 0) return html`<p class="hint">No calls yet.</p>`;
  return html`<ol class="activity">
    ${items.slice(0, ACTIVITY_SHOWN).map(
      (item) =>
        html`<li>
          <span class="time">${timeLabel(item.at)}</span>
          <span class="control" title=${item.controlId}>${item.controlId}</span>
          <span class="outcome ${item.outcome === 'ok' ? 'ok' : 'failed'}">${item.outcome}</span>
          <span class="duration">${durationLabel(item.durationMs)}</span>
        </li>`,
    )}
  </ol>`;
}

/** What one site card needs. */
export interface SiteCardProps {
  site: SiteGrant;
  sessions: TabSessionView[];
  activity: ActivityItem[];
  onGrant(grant: Grant): void;
  onRevoke(): void;
}

/** One allowed site: grant, revoke, its tabs' sessions and recent calls. */
export function renderSite(props: SiteCardProps): TemplateResult {
  const { site, sessions } = props;
  return html`<article class="card site" data-origin=${site.origin}>
    <div class="row">
      <span class="origin" title=${site.origin}>${site.origin}</span>
      <button class="quiet danger" name="revoke" @click=${props.onRevoke}>Revoke</button>
    </div>
    ${grantControl(site, props.onGrant)}
    ${
      sessions.length > 0
        ? html`<ul class="sessions">
            ${sessions.map(sessionRow)}
          </ul>`
        : html`<p class="hint">No tab of this site is attached. Open or reload one.</p>`
    }
    <h3>Recent activity</h3>
    ${activityList(props.activity)}
  </article>`;
}
