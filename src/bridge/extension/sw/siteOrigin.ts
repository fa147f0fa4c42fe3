/**
 * Sites as the person names them in the popup, and the host permission each
 * needs. A site is an origin: scheme, host and port.
 */
import { isSiteOrigin } from '../../../protocol/wire/extensionLink.js';

/** The site origin of what the person typed (`127.0.0.1:7392`, a full URL…), or null. */
export function siteOriginOf(input: string): string | null {
  const trimmed = input.trim();
  if (trimmed === '') return null;
  // Without a scheme, a loopback terminal is http and any other site https.
  const loopback = /^(127\.0\.0\.1|localhost|\[::1\])(:|\/|$)/i.test(trimmed);
  const withScheme = /^[a-z][a-z0-9+.-]*:\/\//i.test(trimmed) ? trimmed : `${loopback ? 'http' : 'https'}://${trimmed}`;
  try {
    const origin = new URL(withScheme).origin;
    return isSiteOrigin(origin) ? origin : null;
  } catch {
    return null;
  }
}

/** The host permission a site needs (host permissions take no port). */
export function hostPermission(origin: string): string {
  const url = new URL(origin);
  return `${url.protocol}//${url.hostname}/*`;
}
