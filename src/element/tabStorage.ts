/**
 * Small per-tab values in `sessionStorage` (SPEC §2: a reload is the same tab,
 * a new tab starts fresh). Every read is validated; storage that is disabled
 * (sandboxed frame, privacy mode) reads as empty and ignores writes.
 */
import { GrantSchema, type Grant } from '../protocol/policy.js';

/** Where the tab keeps the person's grant. */
export const GRANT_STORAGE_KEY = 'tradescript.grant';
/** Where the tab keeps the "confirm trades" mode. */
export const CONFIRM_STORAGE_KEY = 'tradescript.confirmTrades';

function read(key: string): string | null {
  try {
    return globalThis.sessionStorage?.getItem(key) ?? null;
  } catch {
    return null;
  }
}

function write(key: string, value: string): void {
  try {
    globalThis.sessionStorage?.setItem(key, value);
  } catch {
    // Not kept across a reload; the page still works.
  }
}

/** The grant the person chose earlier in this tab, if any. */
export function keptGrant(): Grant | null {
  const parsed = GrantSchema.safeParse(read(GRANT_STORAGE_KEY));
  return parsed.success ? parsed.data : null;
}

/** Keeps the person's grant for reloads of this tab. */
export function keepGrant(grant: Grant): void {
  write(GRANT_STORAGE_KEY, grant);
}

/** Whether "confirm trades" was on earlier in this tab (null: never set). */
export function keptConfirmMode(): boolean | null {
  const value = read(CONFIRM_STORAGE_KEY);
  return value === 'on' ? true : value === 'off' ? false : null;
}

/** Keeps the "confirm trades" mode for reloads of this tab. */
export function keepConfirmMode(enabled: boolean): void {
  write(CONFIRM_STORAGE_KEY, enabled ? 'on' : 'off');
}

/** This tab's id for the activity feed, made once per tab. */
export function tabId(): string {
  const key = 'tradescript.feedTab';
  const kept = read(key);
  if (kept !== null && /^[0-9a-f]{32}$/.test(kept)) return kept;
  // getRandomValues, not randomUUID: the latter needs a secure context.
  const bytes = crypto.getRandomValues(new Uint8Array(16));
  const fresh = Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('');
  write(key, fresh);
  return fresh;
}
