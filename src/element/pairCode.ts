/**
 * Pairing codes as the person brings them (SPEC §9): in the address
 * (`#pair=CODE`, removed from history at once) or pasted into the form, as a
 * bare code or the whole pairing link.
 */

/** The command that prints a fresh pairing link. */
export const PAIR_COMMAND = 'npx tradescript-mcp pair';

/** Eight letters or digits once separators are dropped; shown as `ABCD-2345`. */
const CODE_PATTERN = /^[A-Z0-9]{8}$/;

/** A checked code, or why the input is not one. */
export type PairCodeCheck = { ok: true; code: string } | { ok: false; message: string };

/** The `pair` value of a `#pair=CODE` fragment (with or without the `#`). */
function fromFragment(fragment: string): string | null {
  const body = fragment.startsWith('#') ? fragment.slice(1) : fragment;
  return new URLSearchParams(body).get('pair');
}

/**
 * Checks a pasted code or pairing link; the code comes back in its printed
 * `XXXX-XXXX` form (the server ignores case and separators).
 */
export function checkPairCode(input: string): PairCodeCheck {
  const trimmed = input.trim();
  if (trimmed === '') return { ok: false, message: 'Paste the pairing code or link first.' };
  const hash = trimmed.indexOf('#');
  const raw = hash === -1 ? trimmed : (fromFragment(trimmed.slice(hash)) ?? '');
  const normalized = raw.toUpperCase().replace(/[\s-]/g, '');
  if (!CODE_PATTERN.test(normalized)) {
    return {
      ok: false,
      message: `A pairing code has 8 letters or digits, like ABCD-2345. Run ${PAIR_COMMAND} to print one.`,
    };
  }
  return { ok: true, code: `${normalized.slice(0, 4)}-${normalized.slice(4)}` };
}

/**
 * Reads `#pair=CODE` and removes the fragment from the address and history at
 * once, so the code is never bookmarked, shared or reused by a reload. An
 * unreadable code is dropped all the same.
 */
export function takePairCodeFromUrl(location: Location, history: History): string | null {
  const raw = fromFragment(location.hash);
  if (raw === null) return null;
  history.replaceState(history.state, '', `${location.pathname}${location.search}`);
  const checked = checkPairCode(raw);
  return checked.ok ? checked.code : null;
}
