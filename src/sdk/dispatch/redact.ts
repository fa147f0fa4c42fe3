/**
 * Broker text redaction (SPEC §4): wherever broker text travels or rests
 * (`broker_message`, `details.result`, control results, the activity feed, the
 * ledger) it is whitespace-normalized, bounded to 1,000 characters, null when
 * blank, and suppressed when a possible secret fragment sits at the truncation
 * boundary (a cut secret is still a leaked prefix of one).
 */

/** Most characters of one piece of broker text. */
export const BROKER_TEXT_MAX = 1000;

/** A run of token-like characters this long may be a credential. */
const TOKEN_RUN_MIN = 16;
const TOKEN_CHAR = /[A-Za-z0-9+/_=-]/;
/** A key whose value is a secret, e.g. `api_key=…`, `token: …`, `Bearer …`. */
const SECRET_KEY_BEFORE_CUT =
  /(?:pass(?:word|wd)?|secret|token|api[_-]?key|apikey|access[_-]?key|auth(?:orization)?|bearer|session(?:id)?|cookie|credential|signature|sig|private[_-]?key|client[_-]?secret)["']?\s*(?:[:=]\s*|\s+)["']?[^\s"',;&]*$/i;
/** How far before the cut a secret-ish key may sit. */
const KEY_LOOKBEHIND = 96;

const SAFE_ID = /^[A-Za-z0-9._:-]{1,128}$/;
const MAX_AUTH_URL = 2048;

/** Collapses every whitespace run to one space and trims. */
export function normalizeWhitespace(text: string): string {
  return text.replace(/\s+/g, ' ').trim();
}

/** Length of the token-like run that spans position `cut` (characters on both sides). */
function tokenRunAcross(text: string, cut: number): number {
  let start = cut;
  while (start > 0 && TOKEN_CHAR.test(text.charAt(start - 1))) start -= 1;
  let end = cut;
  while (end < text.length && TOKEN_CHAR.test(text.charAt(end))) end += 1;
  return start < cut && end > cut ? end - start : 0;
}

/** True when cutting `text` at `cut` could leave part of a secret visible. */
export function secretAtBoundary(text: string, cut: number): boolean {
  if (tokenRunAcross(text, cut) >= TOKEN_RUN_MIN) return true;
  const before = text.slice(Math.max(0, cut - KEY_LOOKBEHIND), cut);
  const straddles = cut < text.length && !/\s/.test(text.charAt(cut)) && !/\s/.test(text.charAt(cut - 1));
  return straddles && SECRET_KEY_BEFORE_CUT.test(before);
}

/**
 * Normalizes and bounds a string. Returns `''` for blank text and null when a
 * possible secret sits at the truncation boundary. What {@link redactJson}
 * does to each string.
 */
export function redactString(text: string): string | null {
  const normalized = normalizeWhitespace(text);
  if (normalized.length <= BROKER_TEXT_MAX) return normalized;
  const cut = BROKER_TEXT_MAX - 1;
  if (secretAtBoundary(normalized, cut)) return null;
  return `${normalized.slice(0, cut)}…`;
}

/** Redacts one piece of broker text: normalized, ≤1,000 characters, null when blank or suppressed. */
export function redactBrokerText(text: unknown): string | null {
  if (typeof text !== 'string') return null;
  const bounded = redactString(text);
  return bounded === '' ? null : bounded;
}

/**
 * Redacts every string inside a JSON value (control results, `details.result`,
 * context state). Blank strings stay `''` so a result keeps its shape; a
 * suppressed string becomes null.
 */
export function redactJson(value: unknown): unknown {
  if (typeof value === 'string') return redactString(value);
  if (Array.isArray(value)) return value.map(redactJson);
  if (value === null || typeof value !== 'object') return value;
  const out: Record<string, unknown> = {};
  for (const [key, item] of Object.entries(value)) out[key] = redactJson(item);
  return out;
}

/** A broker request id only when it is a bounded safe identifier, else null. */
export function safeRequestId(value: unknown): string | null {
  return typeof value === 'string' && SAFE_ID.test(value) ? value : null;
}

/** A broker code only when it is a bounded safe identifier, else null. */
export function safeBrokerCode(value: unknown): string | null {
  if (typeof value === 'number' && Number.isInteger(value)) return String(value);
  return safeRequestId(value);
}

/** An HTTP status code, or null. */
export function safeStatusCode(value: unknown): number | null {
  return typeof value === 'number' && Number.isInteger(value) && value >= 100 && value <= 599 ? value : null;
}

/**
 * A re-authentication URL for the person: surfaced only when it is a bounded
 * http(s) URL. The SDK never follows it.
 */
export function safeAuthUrl(value: unknown): string | null {
  if (typeof value !== 'string' || value.length > MAX_AUTH_URL || /\s/.test(value)) return null;
  try {
    const url = new URL(value);
    return url.protocol === 'https:' || url.protocol === 'http:' ? value : null;
  } catch {
    return null;
  }
}
