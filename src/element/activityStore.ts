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
 * Writes start on a later task, after the call's answer has left the page, and
 * at most one write starts per interval: entries of a burst share it (one
 * transaction per call cost the main thread ~0.5 ms a call under load), in
 * transactions of {@link ROWS_PER_TRANSACTION} rows, each on its own task, so
 * no call waits behind a long one. The
 * first entry after a quiet spell is written on the next task. A page being
 * hidden (reload, navigation, tab close) writes what is pending at once, in a
 * transaction issued and committed inside the `pagehide` handler; only a crash
 * can lose the last interval's rows (the feed is a record for the person; the
 * operation ledger is kept apart and is not delayed).
 */
const WRITE_INTERVAL_MS = 1_000;
/**
 * At most this many rows go into one write: the newest. Rows beyond the
 * store's capacity would be trimmed at once, and each costs the main thread an
 * `add` (~40 µs): under a burst of calls writing them all blocked the page for
 * milliseconds per interval (issue 15). The feed shows the newest anyway.
 */
const ROWS_PER_WRITE = ACTIVITY_CAPACITY;
/** Rows in one transaction of a write (~1 ms of the main thread). */
const ROWS_PER_TRANSACTION = 25;
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
  /** Entries waiting for the next write, oldest first; turned into rows (validated) when written. */
  private pending: ActivityEntry[] = [];
  private flushing: Promise<void> | null = null;
  private addedSinceTrim = TRIM_SLACK;
  private timer: ReturnType<typeof setTimeout> | null = null;
  private release: (() => void) | null = null;
  private listening = false;
  /** The open connection, once it is open: what `pagehide` writes through without waiting. */
  private raw: IDBDatabase | null = null;
  private lastWriteAt = -Infinity;

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
   * Keeps one entry. Entries of a burst share one transaction (see
   * {@link WRITE_INTERVAL_MS}); the origin's oldest rows beyond the capacity are
   * dropped every {@link TRIM_SLACK} rows (reads show the newest {@link ACTIVITY_CAPACITY}).
   * Resolves once the entry is written (or could not be).
   */
  add(entry: ActivityEntry): Promise<void> {
    this.pending.push(entry);
    // A burst longer than the interval keeps only what the next write can hold.
    if (this.pending.length > 2 * ROWS_PER_WRITE) this.pending = this.pending.slice(-ROWS_PER_WRITE);
    if (!this.listening) {
      this.listening = true;
      addEventListener('pagehide', this.writeOnHide);
    }
    this.flushing ??= new Promise<void>((resolve) => {
      this.release = resolve;
      const wait = Math.max(0, this.lastWriteAt + WRITE_INTERVAL_MS - performance.now());
      this.timer = setTimeout(() => this.flushNow(), wait);
    });
    return this.flushing;
  }

  /** The interval ran out: the pending rows join the queue of operations. */
  private flushNow(): void {
    const release = this.settleTimer();
    void this.enqueue(() => this.flush(), undefined).then(() => release?.());
  }

  /**
   * The page is going away and the queue's next turn may never come: with the
   * connection open, the pending rows go into a transaction issued and
   * committed now (IndexedDB orders it after any transaction already running).
   */
  private readonly writeOnHide = (): void => {
    if (this.pending.length === 0) return;
    if (!this.raw) return this.flushNow();
    const release = this.settleTimer();
    const rows = this.take();
    try {
      writeRows(this.raw, rows);
      this.addedSinceTrim += rows.length;
    } catch {
      // The connection closed under us: these rows stay in memory only, like any failed write.
    }
    release?.();
  };

  /** Clears the pending timer; returns the release of the promise `add` handed out. */
  private settleTimer(): (() => void) | null {
    if (this.timer !== null) clearTimeout(this.timer);
    const release = this.release;
    this.timer = null;
    this.release = null;
    return release;
  }

  /** Takes the newest pending entries as valid rows; the next `add` starts a new flush. */
  private take(): ActivityRow[] {
    const entries = this.pending.length > ROWS_PER_WRITE ? this.pending.slice(-ROWS_PER_WRITE) : this.pending;
    this.pending = [];
    this.flushing = null;
    const rows: ActivityRow[] = [];
    for (const entry of entries) {
      const parsed = z.safeParse(ActivityRowSchema, { tabId: this.tabId, entry: restingEntry(entry) });
      if (parsed.success) rows.push(parsed.data);
    }
    return rows;
  }

  /** Closes the connection; the next operation reopens it. */
  close(): void {
    if (this.listening) removeEventListener('pagehide', this.writeOnHide);
    this.listening = false;
    const db = this.db;
    this.db = null;
    this.raw = null;
    void db?.then((open) => open.close()).catch(() => undefined);
  }

  /**
   * One transaction for the pending rows, on the raw IndexedDB API: idb's
   * promise per request cost two listeners each, on the main thread, per call.
   */
  private async flush(): Promise<void> {
    const rows = this.take();
    if (rows.length === 0) return;
    this.lastWriteAt = performance.now();
    const db = unwrap(await this.open());
    for (let start = 0; start < rows.length; start += ROWS_PER_TRANSACTION) {
      await completion(writeRows(db, rows.slice(start, start + ROWS_PER_TRANSACTION)));
      this.addedSinceTrim += Math.min(ROWS_PER_TRANSACTION, rows.length - start);
    }
    if (this.addedSinceTrim < TRIM_SLACK) return;
    this.addedSinceTrim = 0;
    const trimming = db.transaction(STORE, 'readwrite');
    trim(trimming.objectStore(STORE));
    await completion(trimming);
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
        this.raw = null;
      },
    });
    const opening = this.db;
    opening.then(
      (db) => {
        if (this.db === opening) this.raw = unwrap(db);
      },
      () => {
        if (this.db === opening) this.db = null;
      },
    );
    return opening;
  }
}

/** Adds `rows` in one transaction, committed at once so a page that unloads meanwhile does not abort it. */
function writeRows(db: IDBDatabase, rows: readonly ActivityRow[]): IDBTransaction {
  const tx = db.transaction(STORE, 'readwrite');
  const store = tx.objectStore(STORE);
  for (const row of rows) store.add(row);
  tx.commit();
  return tx;
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

/** Resolves when `tx` commits; rejects when it fails or aborts. */
function completion(tx: IDBTransaction): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    tx.oncomplete = () => resolve();
    tx.onerror = tx.onabort = () => reject(tx.error ?? new Error('The activity transaction was aborted.'));
  });
}
