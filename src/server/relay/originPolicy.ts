/**
 * The relay's Origin allowlist (SPEC §9): the TradeScript extension, the demo
 * terminal's origin, each `--allowed-origin` (terminal sites and other
 * `chrome-extension://<id>`s).
 */

/**
 * The TradeScript Chrome extension: its id follows from the manifest's fixed
 * `key` (extension/public/manifest.json), so an unpacked build has it too.
 */
export const TRADESCRIPT_EXTENSION_ORIGIN = 'chrome-extension://iopolekcdmpoldckaknpdaaiphniefbl';

/** Origins every relay admits with no flag, so the extension works after a plain `npm start`. */
export const DEFAULT_RELAY_ORIGINS: readonly string[] = [TRADESCRIPT_EXTENSION_ORIGIN];

/**
 * Normalizes an origin as browsers send it: scheme and host lower-case, no
 * trailing slash, no default port. Null when it is not an origin.
 */
export function normalizeOrigin(value: string): string | null {
  const trimmed = value.trim().replace(/\/+$/, '');
  const extension = /^chrome-extension:\/\/([a-p]{32})$/i.exec(trimmed);
  if (extension?.[1]) return `chrome-extension://${extension[1].toLowerCase()}`;
  try {
    const url = new URL(trimmed);
    const web = url.protocol === 'http:' || url.protocol === 'https:';
    if (!web || url.pathname !== '/' || url.search || url.hash || url.username || url.password) return null;
    return url.origin;
  } catch {
    return null;
  }
}

/** The loopback origins a page served on `port` may have. */
export function loopbackOrigins(port: number): string[] {
  return [`http://127.0.0.1:${port}`, `http://localhost:${port}`, `http://[::1]:${port}`];
}

/** Decides whether a relay upgrade's `Origin` may connect. */
export type OriginPolicy = (origin: string | undefined) => boolean;

/** An allowlist read at each upgrade, so origins known only after listen (the demo's port) apply. */
export function originAllowlist(origins: () => Iterable<string>): OriginPolicy {
  return (origin) => {
    if (origin === undefined) return false;
    const normalized = normalizeOrigin(origin);
    if (normalized === null) return false;
    for (const allowed of origins()) if (allowed === normalized) return true;
    return false;
  };
}
