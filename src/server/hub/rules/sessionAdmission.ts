/**
 * Room for a new session (SPEC §2): at most `sessionsPerHost` open or
 * reconnecting sessions per host credential, {@link MAX_SESSIONS_IN_ALL} in
 * all. A host over a cap may only make room among its **own** sessions, and
 * only with one whose tab has been away longer than a reload takes: another
 * host's session is never evicted or blocked, and a reloading tab (which comes
 * back with its kept id) always finds its session still there.
 */
import { MAX_SESSIONS_IN_ALL } from '../../../protocol/index.js';
import type { SessionRecord } from '../hubSessions.js';

/** The verdict on a new session. */
export type Admission =
  | { kind: 'room' }
  | { kind: 'evict'; session: SessionRecord }
  | { kind: 'refused'; limit: 'sessionsPerHost' | 'sessionsInAll'; message: string };

/** What admission weighs. */
export interface AdmissionRules {
  /** `sessionsPerHost` in force. */
  perHost: number;
  /** A session disconnected for less than this may be a tab reloading: never evicted. */
  reloadWindowMs: number;
  now: number;
}

/** The page shows this (SPEC §2: a clear refusal). At most 256 characters. */
export function perHostRefusal(max: number): string {
  return `too many sessions for this terminal: ${max} tabs are open or reconnecting (sessionsPerHost); close a tab you no longer use, then reload this one`;
}

const IN_ALL_REFUSAL = `the server has ${MAX_SESSIONS_IN_ALL} sessions open or reconnecting; close terminal tabs you no longer use, then reload this one`;

/** The host's own session that may make room: the one away longest, past the reload window. */
function staleOwn(own: readonly SessionRecord[], rules: AdmissionRules): SessionRecord | null {
  let oldest: SessionRecord | null = null;
  for (const s of own) {
    if (s.conn !== null || s.disconnectedAt === null) continue;
    if (rules.now - s.disconnectedAt < rules.reloadWindowMs) continue;
    if (oldest === null || s.disconnectedAt < (oldest.disconnectedAt ?? 0)) oldest = s;
  }
  return oldest;
}

/** Decides whether `hostId` may open one more session among `live`. */
export function admitSession(live: readonly SessionRecord[], hostId: string, rules: AdmissionRules): Admission {
  const own = live.filter((s) => s.hostId === hostId);
  const overHost = own.length >= rules.perHost;
  const overAll = live.length >= MAX_SESSIONS_IN_ALL;
  if (!overHost && !overAll) return { kind: 'room' };
  const stale = staleOwn(own, rules);
  if (stale) return { kind: 'evict', session: stale };
  return overHost
    ? { kind: 'refused', limit: 'sessionsPerHost', message: perHostRefusal(rules.perHost) }
    : { kind: 'refused', limit: 'sessionsInAll', message: IN_ALL_REFUSAL };
}
