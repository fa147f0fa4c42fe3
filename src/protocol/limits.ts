/**
 * Transport limits (SPEC §6). Every limit is a named constant here; a server may
 * lower one at startup (`--limit NAME=VALUE`) but never raise it.
 */

/** KB and MB are 1024 and 1024² bytes. */
export const KB = 1024;
/** One mebibyte. */
export const MB = 1024 * 1024;

/** Default limits, each the maximum the product allows. */
export const DEFAULT_LIMITS = {
  /** Calls in one `tradescript_batch`. */
  batchCalls: 25,
  /** Positional arguments in one call. */
  callArgs: 16,
  /** Request JSON bytes (over it: `request_too_large`). */
  requestBytes: 256 * KB,
  /** Normal result JSON bytes. */
  resultBytes: 2 * MB,
  /** Decoded snapshot bytes (width × height × 4). */
  snapshotPixels: 12 * MB,
  /** Encoded snapshot image bytes. */
  snapshotBytes: 4 * MB,
  /** Active subscriptions per session, across its attachments. */
  subscriptionsPerSession: 32,
  /** Bindings in one subscription. */
  bindingsPerSubscription: 32,
  /** Events a subscription's ring buffer keeps. */
  bufferedEvents: 256,
  /** Events one poll may return. */
  eventsPerPoll: 100,
  /** Nesting depth of any JSON value. */
  jsonDepth: 24,
  /** Characters in any one string. */
  stringLength: 128 * KB,
  /** Milliseconds a call may take end to end. */
  callDeadlineMs: 30_000,
  /**
   * Milliseconds an HTTP attachment may go without a request (and without an
   * open stream) before it ends as a detach (SPEC §2).
   */
  attachmentIdleMs: 10 * 60_000,
} as const;

/**
 * Limits the hub enforces where a tab attaches (SPEC §2, §6). Kept apart from
 * {@link DEFAULT_LIMITS}, which travel with requests and reach the browser
 * bundle; `--limit` lowers these the same way.
 */
export const HUB_LIMITS = {
  /** Bytes of JSON one session may declare as its vocabulary (controls and channels), checked at attach. */
  catalogBytes: 1 * MB,
  /** Open or reconnecting sessions one host credential may hold. */
  sessionsPerHost: 16,
} as const;

/** Open or reconnecting sessions of every host together (SPEC §2). */
export const MAX_SESSIONS_IN_ALL = 64;

/** The limits in force for one process (a hub limit is present when `--limit` lowered it). */
export type Limits = { -readonly [K in keyof typeof DEFAULT_LIMITS]: number } & {
  -readonly [K in keyof typeof HUB_LIMITS]?: number;
};

/** A limit's name. */
export type LimitName = keyof typeof DEFAULT_LIMITS | keyof typeof HUB_LIMITS;

/**
 * Limit names that may surface as `limit_exceeded` with `details.limit`: SPEC
 * §6's list. `catalogBytes` and `sessionsPerHost` are refused to the tab that
 * attaches, not to an MCP client, but the vocabulary is the SPEC's whole list
 * (an agent or vendor reading the published error shape finds every name).
 */
export const REPORTED_LIMITS = [
  'batchCalls',
  'callArgs',
  'resultBytes',
  'snapshotPixels',
  'snapshotBytes',
  'subscriptionsPerSession',
  'bindingsPerSubscription',
  'eventsPerPoll',
  'jsonDepth',
  'stringLength',
  'catalogBytes',
  'sessionsPerHost',
] as const;

/** A limit name that may appear in `error.details.limit`. */
export type ReportedLimit = (typeof REPORTED_LIMITS)[number];

/** Pixels per side a snapshot may have before it is downscaled. */
export const SNAPSHOT_MAX_SIDE = 8000;

/** Tombstones of stopped subscriptions kept per session, and for how long. */
export const TOMBSTONES_KEPT = 32;
/** How long a tombstone stays visible, in milliseconds. */
export const TOMBSTONE_TTL_MS = 10 * 60_000;

/** Relay timing (SPEC §9). */
export const RELAY_TIMING = {
  /** Application-level heartbeat interval. */
  heartbeatMs: 20_000,
  /** A socket silent for this long is considered dead. */
  heartbeatTimeoutMs: 45_000,
  /** A socket must complete hello + first session within this time. */
  attachTimeoutMs: 5_000,
  /** A pairing code's lifetime. */
  pairCodeTtlMs: 2 * 60_000,
  /** How long a person has to confirm a trade in the page. */
  confirmationTimeoutMs: 20_000,
} as const;

/**
 * Applies `--limit NAME=VALUE` overrides. Raising a limit, an unknown name or a
 * value that is not a positive integer is refused with a message naming the fix.
 */
export function lowerLimits(overrides: Record<string, number>, base: Limits = { ...DEFAULT_LIMITS }): Limits {
  const next: Limits = { ...base };
  const known: Record<string, number> = { ...DEFAULT_LIMITS, ...HUB_LIMITS };
  for (const [name, value] of Object.entries(overrides)) {
    const max = Object.hasOwn(known, name) ? known[name] : undefined;
    if (max === undefined) {
      throw new Error(`Unknown limit "${name}". Known limits: ${Object.keys(known).join(', ')}.`);
    }
    if (!Number.isInteger(value) || value < 1) {
      throw new Error(`Limit ${name} must be a positive integer.`);
    }
    if (value > max) {
      throw new Error(`Limit ${name} can only be lowered (maximum ${max}).`);
    }
    next[name as LimitName] = value;
  }
  return next;
}
