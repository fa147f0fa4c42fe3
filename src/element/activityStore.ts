/**
 * The activity feed's IndexedDB store, so the feed survives a reload. Rows are
 * per tab (a tab id kept in sessionStorage), bounded to the newest
 * {@link ACTIVITY_CAPACITY} in the origin, built field by field from the SDK's
 * entry (which carries no argument values or broker text) and validated again
 * when read back: an unreadable row is skipped, never shown. Each write is one
 * record holding its rows (a batch); a record of one row, as earlier versions
 * wrote, reads the same.
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
 * transaction per call cost the main thread ~0.5 ms a call under load), as one
 * record in one transaction: a request per row cost the page ~30 µs and
 * IndexedDB's thread in the browser ~70 µs per call under a burst (issue 15). The
 * first entry after a quiet spell is written on the next task. A page being
 * hidden (reload, navigation, tab close) writes what is pending at once, in a
 * transaction issued and committed inside the `pagehide` handler; only a crash
 * can lose the last interval's rows (the feed is a record for the person; the
 * operation ledger is kept apart and is not delayed).
 */
const WRITE_INTERVAL_MS = 1_000;
/**
 * At most this many rows go into one write: the newest. Rows beyond the
 * store's capacity would be trimmed at once (issue 15). The feed shows the
 * newest anyway.
 */
const ROWS_PER_WRITE = ACTIVITY_CAPACITY;
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

const TabIdSchema = z.string().check(z.minLength(1), z.maxLength(64));

/** One row in its own record (what earlier versions wrote; still read). */
const ActivityRowSchema = z.strictObject({ tabId: TabIdSchema, entry: ActivityEntrySchema });

/** One write's rows, oldest first; each entry is validated on its own when read. */
const ActivityBatchSchema = z.strictObject({
  tabId: TabIdSchema,
  entries: z.array(z.unknown()).check(z.maxLength(ROWS_PER_WRITE)),
});
/** A record as written: one write's valid rows, oldest first. */
interface ActivityBatch {
  tabId: string;
  entries: ActivityEntry[];
}

/** The database schema, declared once: records under an auto-incremented key, indexed by tab. */
interface ActivityDb extends DBSchema {
  activity: {
    key: number;
    value: ActivityBatch | z.infer<typeof ActivityRowSchema>;
    indexes: { byTab: string };
  };
}

/** The valid rows a record holds, oldest first (none when it is unreadable). */
function entriesOf(record: unknown): ActivityEntry[] {
  const batch = z.safeParse(ActivityBatchSchema, record);
  if (!batch.success) {
    const row = z.safeParse(ActivityRowSchema, record);
    return row.success ? [row.data.entry] : [];
  }
  const entries: ActivityEntry[] = [];
  for (const raw of batch.data.entries) {
    const entry = z.safeParse(ActivityEntrySchema, raw);
    if (entry.success) entries.push(entry.data);
  }
  return entries;
}

/** How many rows a record counts for, when trimming (an unreadable one counts as one). */
function rowCount(record: unknown): number {
  const entries = (record as { entries?: unknown } | null)?.entries;
  return Array.isArray(entries) ? Math.max(1, entries.length) : 1;
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
      const records: unknown[] = await (await this.open()).getAllFromIndex(STORE, 'byTab', this.tabId);
      const entries = records.flatMap(entriesOf);
      return entries.slice(-ACTIVITY_CAPACITY).reverse();
    }, []);
  }

  /**
   * Keeps one entry. Entries of a burst share one record (see
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
    const batch = this.take();
    try {
      if (batch.entries.length > 0) writeBatch(this.raw, batch);
      this.addedSinceTrim += batch.entries.length;
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

  /** Takes the newest pending entries as one record of valid rows; the next `add` starts a new flush. */
  private take(): ActivityBatch {
    const pending = this.pending.length > ROWS_PER_WRITE ? this.pending.slice(-ROWS_PER_WRITE) : this.pending;
    this.pending = [];
    this.flushing = null;
    const entries: ActivityEntry[] = [];
    for (const entry of pending) {
      const parsed = z.safeParse(ActivityEntrySchema, restingEntry(entry));
      if (parsed.success) entries.push(parsed.data);
    }
    return { tabId: this.tabId, entries };
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
    const batch = this.take();
    if (batch.entries.length === 0) return;
    this.lastWriteAt = performance.now();
    const db = unwrap(await this.open());
    await completion(writeBatch(db, batch));
    this.addedSinceTrim += batch.entries.length;
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

/** Adds one write's rows as one record, committed at once so a page that unloads meanwhile does not abort it. */
function writeBatch(db: IDBDatabase, batch: ActivityBatch): IDBTransaction {
  const tx = db.transaction(STORE, 'readwrite');
  tx.objectStore(STORE).add(batch);
  tx.commit();
  return tx;
}

/**
 * Drops the origin's oldest records beyond those holding its newest
 * {@link ACTIVITY_CAPACITY} rows, in one range delete (keys grow with age);
 * the record that crosses the capacity is cut to its newest rows, so the
 * store holds exactly the capacity after a trim.
 */
function trim(store: IDBObjectStore): void {
  let kept = 0;
  const newestFirst = store.openCursor(null, 'prev');
  newestFirst.onsuccess = () => {
    const cursor = newestFirst.result;
    if (cursor === null) return;
    if (kept >= ACTIVITY_CAPACITY) return void store.delete(IDBKeyRange.upperBound(cursor.primaryKey));
    const rows = rowCount(cursor.value);
    const room = ACTIVITY_CAPACITY - kept;
    kept += rows;
    if (rows > room) {
      // The record that crosses the capacity keeps its newest rows only (a record's rows are oldest first).
      const record = cursor.value as ActivityBatch;
      cursor.update({ ...record, entries: record.entries.slice(-room) });
      kept = ACTIVITY_CAPACITY;
    }
    cursor.continue();
  };
}

/** Resolves when `tx` commits; rejects when it fails or aborts. */
function completion(tx: IDBTransaction): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    tx.oncomplete = () => resolve();
    tx.onerror = tx.onabort = () => reject(tx.error ?? new Error('The activity transaction was aborted.'));
  });
}
