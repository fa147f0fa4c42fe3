/**
 * What the person reads in the page's status. Each message names the next step.
 */

/** No credential and no pairing code. */
export const NOT_PAIRED_MESSAGE =
  'This browser is not paired yet: run `npx tradescript-mcp pair` and open the pairing link it prints.';

/** A pairing code was refused (SPEC §9: expired or used). */
export const PAIR_CODE_REFUSED_MESSAGE =
  'pairing link expired or used — run `npx tradescript-mcp pair` for a fresh link';

/** A stored credential was refused or revoked. */
export const CREDENTIAL_REFUSED_MESSAGE =
  'This browser’s pairing was revoked or is no longer known to the server — run `npx tradescript-mcp pair` for a fresh link.';

/** The credential could not be written to this browser's storage. */
export const CREDENTIAL_NOT_SAVED_MESSAGE =
  'Paired, but this browser could not store the pairing; after a reconnect you will need a fresh link from `npx tradescript-mcp pair`.';

/** The relay refused this origin (close code `originNotAllowed`): the flag that admits it. */
export function originNotAllowedMessage(origin: string): string {
  return `This origin is not allowed: start the server with \`--allowed-origin ${origin}\`.`;
}

/** Waiting before the next reconnect. */
export const RECONNECTING_MESSAGE =
  'Lost the connection to tradescript-mcp; reconnecting. Is the server still running?';

/** The page's Content-Security-Policy refused the relay socket: what its `connect-src` must add. */
export function cspBlockedMessage(relayOrigin: string): string {
  return `This page’s Content-Security-Policy blocks the relay: add \`${relayOrigin}\` to its connect-src.`;
}
