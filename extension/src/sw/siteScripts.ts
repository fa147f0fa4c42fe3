/**
 * The content script runs only on sites the person allowed (SPEC §10): one
 * registration per site, matching that origin (scheme, host and port) and
 * only top-level frames, registered when the site is allowed and removed when
 * it is revoked. Tabs of the site already open get the script injected at once.
 */
import { hostPermission } from '../../../src/bridge/extension/sw/index.js';

/** The built content script. */
export const CONTENT_SCRIPT = 'content.js';
const ID_PREFIX = 'site-';

/** A registration id for a site: hex of the origin, since ids allow few characters. */
export function scriptId(origin: string): string {
  return ID_PREFIX + [...new TextEncoder().encode(origin)].map((b) => b.toString(16).padStart(2, '0')).join('');
}

/** The match pattern of exactly this origin's pages. */
export function originPattern(origin: string): string {
  return `${origin}/*`;
}

/** Makes the registered scripts exactly one per allowed site. */
export async function syncSiteScripts(origins: readonly string[]): Promise<void> {
  const wanted = new Map(origins.map((origin) => [scriptId(origin), origin]));
  const registered = await chrome.scripting.getRegisteredContentScripts();
  const stale = registered.map((s) => s.id).filter((id) => id.startsWith(ID_PREFIX) && !wanted.has(id));
  if (stale.length > 0) await chrome.scripting.unregisterContentScripts({ ids: stale });
  const have = new Set(registered.map((s) => s.id));
  const missing = [...wanted].filter(([id]) => !have.has(id));
  if (missing.length === 0) return;
  await chrome.scripting.registerContentScripts(
    missing.map(([id, origin]) => ({
      id,
      matches: [originPattern(origin)],
      js: [CONTENT_SCRIPT],
      runAt: 'document_start' as const,
      allFrames: false,
      persistAcrossSessions: true,
    })),
  );
}

/** Injects the content script into the site's open tabs (their pages loaded before the grant). */
export async function injectIntoOpenTabs(origin: string): Promise<void> {
  const tabs = await chrome.tabs.query({ url: originPattern(origin) });
  await Promise.all(
    tabs.map((tab) =>
      tab.id === undefined
        ? undefined
        : chrome.scripting
            .executeScript({ target: { tabId: tab.id, frameIds: [0] }, files: [CONTENT_SCRIPT] })
            .catch(() => undefined),
    ),
  );
}

/**
 * Gives back a revoked site's host permission when no other allowed site
 * needs it (the loopback hosts are the manifest's own and stay).
 */
export async function releaseHostPermission(origin: string, remaining: readonly { origin: string }[]): Promise<void> {
  const permission = hostPermission(origin);
  if (remaining.some((site) => hostPermission(site.origin) === permission)) return;
  await chrome.permissions.remove({ origins: [permission] }).catch(() => false);
}
