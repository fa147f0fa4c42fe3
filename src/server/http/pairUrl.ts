/**
 * The demo's pairing link (SPEC §9), apart from the admin API so a starting
 * server makes one without loading the API's schemas (SPEC §12).
 */

/** Builds a pairing link: the code rides in the fragment, which never reaches a server log. */
export function pairUrlOf(demoUrl: string | undefined, code: string): string | null {
  return demoUrl ? `${demoUrl.replace(/\/?$/, '/')}#pair=${code}` : null;
}
