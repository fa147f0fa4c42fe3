/**
 * A page whose Content-Security-Policy leaves the relay out of `connect-src`
 * (SPEC §9, §10). The page opens the relay's WebSocket itself (issue 15), so
 * such a policy stops the bridge, and the browser says so only in the
 * console while the relay client keeps retrying. This hears the browser's
 * violation report for the relay's origin and names the fix instead.
 */
import { cspBlockedMessage } from '../relay/statusMessages.js';

/** Calls `onBlocked` with what to tell the person when the page's policy refuses `relayUrl`; returns how to stop. */
export function watchRelayCsp(relayUrl: string, onBlocked: (message: string) => void): () => void {
  const target = globalThis.document as Document | undefined;
  let origin: string;
  try {
    origin = new URL(relayUrl).origin;
  } catch {
    return () => undefined; // not a URL: the relay client reports that itself
  }
  if (!target) return () => undefined;
  const heard = (event: SecurityPolicyViolationEvent): void => {
    if (event.effectiveDirective !== 'connect-src') return;
    if (event.blockedURI === origin || event.blockedURI.startsWith(`${origin}/`)) onBlocked(cspBlockedMessage(origin));
  };
  target.addEventListener('securitypolicyviolation', heard);
  return () => target.removeEventListener('securitypolicyviolation', heard);
}
