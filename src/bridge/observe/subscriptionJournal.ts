/**
 * What outlives the bridge worker of a subscription (SPEC §7: "if it restarts,
 * its subscriptions become `bridge-restarted` tombstones"). Ring buffers are
 * memory only; each session's subscription ids, owners, targets, bindings and
 * last sequence are written to IndexedDB (at most once a second), so the next
 * worker of the same tab (a reload keeps the session id) answers a known id
 * with a tombstone instead of `subscription_not_found`. What IndexedDB
 * returns is parsed like any other input.
 */
import { openDB, type DBSchema, type IDBPDatabase } from 'idb';
import * as z from 'zod/mini';
import { BindingSchema, StopReasonSchema, TargetSchema } from '../../protocol/index.js';

/** One subscription as the journal keeps it. */
export const StoredSubscriptionSchema = z.strictObject({
  subscriptionId: z.string().check(z.minLength(1), z.maxLength(128)),
  attachmentId: z.string().check(z.minLength(1), z.maxLength(128)),
  target: TargetSchema,
  bindings: z.array(BindingSchema).check(z.maxLength(256)),
  startedAtMs: z.number(),
  lastSequence: z.int().check(z.nonnegative()),
  stoppedAtMs: z.optional(z.number()),
  reason: z.optional(StopReasonSchema),
});
/** One subscription as the journal keeps it. */
export type StoredSubscription = z.infer<typeof StoredSubscriptionSchema>;

const StoredSessionSchema = z.object({
  savedAtMs: z.number(),
  entries: z.array(StoredSubscriptionSchema).check(z.maxLength(1024)),
});
type StoredSession = z.infer<typeof StoredSessionSchema>;

/** Loads and saves one session's subscriptions. */
export interface SubscriptionJournal {
  /** The session's entries; none when nothing (or nothing readable) is stored. */
  load(sessionId: string): Promise<StoredSubscription[]>;
  save(sessionId: string, entries: StoredSubscription[]): Promise<void>;
}

/** The journal's IndexedDB database name (its own, so the credential store's versions stay independent). */
export const JOURNAL_DB_NAME = 'tradescript-bridge-subscriptions';
/** A session not saved for this long belongs to a tab that is gone. */
export const JOURNAL_RETENTION_MS = 24 * 60 * 60_000;

interface JournalDb extends DBSchema {
  sessions: { key: string; value: StoredSession };
}

function parseSession(value: unknown): StoredSession | null {
  const parsed = z.safeParse(StoredSessionSchema, value);
  return parsed.success ? parsed.data : null;
}

/** The IndexedDB journal; loading also forgets sessions of tabs long gone. */
export function createIdbSubscriptionJournal(
  dbName: string = JOURNAL_DB_NAME,
  now: () => number = Date.now,
): SubscriptionJournal {
  let db: Promise<IDBPDatabase<JournalDb>> | null = null;
  const open = (): Promise<IDBPDatabase<JournalDb>> => {
    db ??= openDB<JournalDb>(dbName, 1, {
      upgrade(database) {
        database.createObjectStore('sessions');
      },
    });
    return db;
  };
  return {
    async load(sessionId) {
      const database = await open();
      const transaction = database.transaction('sessions', 'readwrite');
      for (let cursor = await transaction.store.openCursor(); cursor; cursor = await cursor.continue()) {
        const stored = parseSession(cursor.value);
        if (cursor.key !== sessionId && (!stored || now() - stored.savedAtMs > JOURNAL_RETENTION_MS))
          await cursor.delete();
      }
      const mine = parseSession(await transaction.store.get(sessionId));
      await transaction.done;
      return mine?.entries ?? [];
    },
    async save(sessionId, entries) {
      await (await open()).put('sessions', { savedAtMs: now(), entries }, sessionId);
    },
  };
}

/** A journal in memory (tests; and a runtime whose restart should forget). */
export function createMemorySubscriptionJournal(): SubscriptionJournal & {
  readonly sessions: Map<string, StoredSubscription[]>;
} {
  const sessions = new Map<string, StoredSubscription[]>();
  return {
    sessions,
    load: async (sessionId) => (sessions.get(sessionId) ?? []).map((entry) => StoredSubscriptionSchema.parse(entry)),
    save: async (sessionId, entries) => {
      sessions.set(sessionId, structuredClone(entries));
    },
  };
}
