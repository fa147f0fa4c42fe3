/**
 * The activity feed's IndexedDB store, so the feed survives a reload. Rows are
 * per tab (a tab id kept in sessionStorage), bounded to the newest
 * {@link ACTIVITY_CAPACITY} in the origin, built field by field from the SDK's
 * entry (which carries no argument values or broker text) and validated again
 * when read back: an unreadable row is skipped, never shown.
 */
import { openDB, unwrap, type DBSchema, type IDBPDatabase } from 'idb';
import * as z from 'zod/mini';
import { ErrorCodeSchema } from '../protocol/errors.js';
import { TargetSchema } from '../protocol/target.js';
import type { ActivityEntry } from '../sdk/types.js';

/** The database's name (one per origin). */
export const ACTIVITY_DB_NAME = 'tradescript-element';
/** Rows kept in the origin's store; the oldest go first. */
export const ACTIVITY_CAPACITY = 200;

/**
 * Writes wait for the next task, so they start after the call's answer has left
 * the page (a write inside the call's own task competed with the operation
 * ledger's), and entries of one burst share one transaction. Longer would risk
 * losing the last entries to a reload.
 */
const FLUSH_DELAY_MS = 0;
/** The store is trimmed back to capacity once this many rows were added since the last trim. */
const TRIM_SLACK = 50;

const SCHEMA_VERSION = 1;
const STORE = 'activity';

const ActivityEntrySchema = z.strictObject({
  at: z.string().check(z.maxLength(64)),
  controlId: z.string().check(z.minLength(1), z.maxLength(256)),
  target: TargetSchema,
  clientName: z.string().check(z.maxLength(128)),
  outcome: z.union([z.literal('ok'), ErrorCodeSchema]),
  durationMs: z.number().check(z.nonnegative()),
});

const ActivityRowSchema = z.strictObject({
  tabId: z.string().check(z.minLength(1), z.maxLength(64)),
  entry: ActivityEntrySchema,
});
type ActivityRow = z.infer<typeof ActivityRowSchema>;

/** The database schema, declared once: rows under an auto-incremented key, indexed by tab. */
interface ActivityDb extends DBSchema {
  activity: {
    key: number;
    value: ActivityRow;
    indexes: { byTab: string };
  };
}

/** Only the fields the feed shows, so nothing else the SDK might add comes to rest. */
function restingEntry(entry: ActivityEntry): ActivityEntry {
  const { at, controlId, target, clientName, outcome, durationMs } = entry;
  return { at, controlId, target, clientName, outcome, durationMs };
}

/** One tab's recent activity in IndexedDB. Every operation runs in order; failures leave the feed in memory only. */
export class ActivityStore {
  private db: Promise<IDBPDatabase<ActivityDb>> | null = null;
  private queue: Promise<unknown> = Promise.resolve();
  private pending: ActivityRow[] = [];
  private flushing: Promise<void> | null = null;
  private addedSinceTrim = TRIM_SLACK;
  private timer: ReturnType<typeof setTimeout> | null = null;
  private release: (() => void) | null = null;
  private listening = false;

  constructor(
    private readonly tabId: string,
    private readonly name: string = ACTIVITY_DB_NAME,
  ) {}

  /** This tab's kept entries, newest first. */
  load(): Promise<ActivityEntry[]> {
    return this.enqueue(async () => {
      const rows: unknown[] = await (await this.open()).getAllFromIndex(STORE, 'byTab', this.tabId);
      const entries: ActivityEntry[] = [];
      for (const raw of rows) {
        const row = z.safeParse(ActivityRowSchema, raw);
        if (row.success) entries.push(row.data.entry);
      }
      return entries.slice(-ACTIVITY_CAPACITY).reverse();
    }, []);
  }

  /**
   * Keeps one entry. Entries arriving in the same task share one transaction; the origin's oldest rows beyond the capacity are dropped every
   * {@link TRIM_SLACK} rows (reads show the newest {@link ACTIVITY_CAPACITY}).
   * A page being hidden writes at once.
   */
  add(entry: ActivityEntry): Promise<void> {
    const parsed = z.safeParse(ActivityRowSchema, { tabId: this.tabId, entry: restingEntry(entry) });
    if (!parsed.success) return Promise.resolve();
    this.pending.push(parsed.data);
    if (!this.listening) {
      this.listening = true;
      addEventListener('pagehide', this.flushNow);
    }
    this.flushing ??= new Promise<void>((resolve) => {
      this.release = resolve;
      this.timer = setTimeout(() => this.flushNow(), FLUSH_DELAY_MS);
    });
    return this.flushing;
  }

  /** Writes what is pending now (a reload or tab close is coming, or the delay ran out). */
  private readonly flushNow = (): void => {
    if (this.timer !== null) clearTimeout(this.timer);
    const release = this.release;
    this.timer = null;
    this.release = null;
    if (this.pending.length === 0 && !release) return;
    void this.enqueue(() => this.flush(), undefined).then(() => release?.());
  };

  /** Closes the connection; the next operation reopens it. */
  close(): void {
    if (this.listening) removeEventListener('pagehide', this.flushNow);
    this.listening = false;
    const db = this.db;
    this.db = null;
    void db?.then((open) => open.close()).catch(() => undefined);
  }

  /**
   * One transaction for the pending rows, on the raw IndexedDB API: idb's
   * promise per request cost two listeners each, on the main thread, per call.
   */
  private async flush(): Promise<void> {
    const rows = this.pending;
    this.pending = [];
    this.flushing = null;
    if (rows.length === 0) return;
    const tx = unwrap(await this.open()).transaction(STORE, 'readwrite');
    const store = tx.objectStore(STORE);
    for (const row of rows) store.add(row);
    this.addedSinceTrim += rows.length;
    if (this.addedSinceTrim >= TRIM_SLACK) {
      this.addedSinceTrim = 0;
      trim(store);
    }
    await new Promise<void>((resolve, reject) => {
      tx.oncomplete = () => resolve();
      tx.onerror = tx.onabort = () => reject(tx.error ?? new Error('The activity transaction was aborted.'));
    });
  }

  private enqueue<T>(work: () => Promise<T>, fallback: T): Promise<T> {
    const next = this.queue.then(work).catch(() => fallback);
    this.queue = next;
    return next;
  }

  private open(): Promise<IDBPDatabase<ActivityDb>> {
    this.db ??= openDB<ActivityDb>(this.name, SCHEMA_VERSION, {
      upgrade(db) {
        const store = db.createObjectStore(STORE, { autoIncrement: true });
        store.createIndex('byTab', 'tabId');
      },
      // Another tab needs a newer schema: let it, and reopen on our next operation.
      blocking: () => this.close(),
      terminated: () => {
        this.db = null;
      },
    });
    const opening = this.db;
    opening.catch(() => {
      if (this.db === opening) this.db = null;
    });
    return opening;
  }
}

/** Drops the origin's oldest rows beyond {@link ACTIVITY_CAPACITY} in one range delete (keys grow with age). */
function trim(store: IDBObjectStore): void {
  const counting = store.count();
  counting.onsuccess = () => {
    const excess = counting.result - ACTIVITY_CAPACITY;
    if (excess <= 0) return;
    const keys = store.getAllKeys(null, excess);
    keys.onsuccess = () => {
      const newestDropped = keys.result.at(-1);
      if (newestDropped !== undefined) store.delete(IDBKeyRange.upperBound(newestDropped));
    };
  };
}
