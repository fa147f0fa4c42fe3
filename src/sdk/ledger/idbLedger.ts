/**
 * The durable operation ledger (SPEC §5): IndexedDB through `idb`, so a page
 * reload keeps every operation's evidence. A byte-equivalent retry after a
 * reload returns the recorded outcome; an entry left `attempted` by a page that
 * died mid-dispatch reads back as uncertain, never as "not sent".
 *
 * IndexedDB is a trust boundary: every row is validated on read, and a row
 * that exists but does not validate (or names another key) makes `get`
 * reject, so the dispatcher answers `internal_error` and dispatches nothing
 * under that key. Rows are bounded: beyond the capacity the oldest entries with
 * a definite outcome go first; `attempted` and `uncertain` ones are never
 * evicted (they are simply not in the eviction index).
 */
import { openDB, type DBSchema, type IDBPDatabase } from 'idb';
import * as z from 'zod/mini';
import {
  LedgerEntrySchema,
  entryForRest,
  isEvictable,
  sameKey,
  type LedgerEntry,
  type LedgerKey,
  type OperationLedger,
} from './operationLedger.js';

/** The database's default name (one per origin). */
export const IDB_LEDGER_NAME = 'tradescript-ledger';
/** Most rows kept while some can be forgotten. */
export const IDB_LEDGER_CAPACITY = 10_000;
/** An IndexedDB request that takes longer than this fails (a blocked or wedged database). */
export const IDB_LEDGER_TIMEOUT_MS = 5_000;

const SCHEMA_VERSION = 1;
const STORE = 'entries';

/** One stored row. `settledAt` is present only while the entry may be evicted, so only those rows are indexed. */
const LedgerRowSchema = z.strictObject({ entry: LedgerEntrySchema, settledAt: z.optional(z.number()) });
type LedgerRow = z.infer<typeof LedgerRowSchema>;

/** The database schema, declared once: one store keyed by [sessionId, namespace, operationId]. */
interface LedgerDb extends DBSchema {
  entries: {
    key: [string, string, string];
    value: LedgerRow;
    indexes: { bySettled: number };
  };
}

/** A row exists but could not be read back faithfully. */
export class LedgerReadError extends Error {
  override readonly name = 'LedgerReadError';
}

/** Options of {@link IdbLedger}. */
export interface IdbLedgerOptions {
  /** Database name (default {@link IDB_LEDGER_NAME}); tests use their own. */
  name?: string;
  /** Most rows kept while some can be forgotten (default {@link IDB_LEDGER_CAPACITY}). */
  capacity?: number;
  /** Per-request bound (default {@link IDB_LEDGER_TIMEOUT_MS}). */
  timeoutMs?: number;
  /** Clock for eviction order, epoch milliseconds. */
  now?: () => number;
}

function idbKey(key: LedgerKey): [string, string, string] {
  return [key.sessionId, key.namespace, key.operationId];
}

function withTimeout<T>(work: Promise<T>, ms: number): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`The operation ledger did not answer within ${ms} ms.`)), ms);
  });
  return Promise.race([work, timeout]).finally(() => clearTimeout(timer));
}

/** An operation ledger kept in IndexedDB. */
export class IdbLedger implements OperationLedger {
  private db: Promise<IDBPDatabase<LedgerDb>> | null = null;
  private readonly name: string;
  private readonly capacity: number;
  private readonly timeoutMs: number;
  private readonly now: () => number;
  /** Strictly increasing within this page, so rows settled in one millisecond keep their order. */
  private lastSettled = 0;

  constructor(options: IdbLedgerOptions = {}) {
    this.name = options.name ?? IDB_LEDGER_NAME;
    this.capacity = options.capacity ?? IDB_LEDGER_CAPACITY;
    this.timeoutMs = options.timeoutMs ?? IDB_LEDGER_TIMEOUT_MS;
    this.now = options.now ?? Date.now;
  }

  /** The entry of a key; rejects with {@link LedgerReadError} when its row is unreadable. */
  get(key: LedgerKey): Promise<LedgerEntry | undefined> {
    return withTimeout(this.read(key), this.timeoutMs);
  }

  /** Creates or replaces an entry (broker text redacted for rest), then evicts beyond capacity. */
  put(entry: LedgerEntry): Promise<void> {
    return withTimeout(this.write(entry), this.timeoutMs);
  }

  /** Forgets one entry. */
  delete(key: LedgerKey): Promise<void> {
    return withTimeout(
      this.open().then((db) => db.delete(STORE, idbKey(key))),
      this.timeoutMs,
    );
  }

  /** Closes the connection; the next request reopens it. */
  async close(): Promise<void> {
    const db = this.db;
    this.db = null;
    if (db) (await db.catch(() => null))?.close();
  }

  private async read(key: LedgerKey): Promise<LedgerEntry | undefined> {
    const db = await this.open();
    const raw: unknown = await db.get(STORE, idbKey(key));
    if (raw === undefined) return undefined;
    const row = z.safeParse(LedgerRowSchema, raw);
    if (!row.success || !sameKey(row.data.entry, key)) {
      throw new LedgerReadError('A stored ledger entry could not be read back faithfully.');
    }
    return row.data.entry;
  }

  private async write(entry: LedgerEntry): Promise<void> {
    const resting = entryForRest(entry);
    const row: LedgerRow = isEvictable(resting.state)
      ? { entry: resting, settledAt: this.settledAt() }
      : { entry: resting };
    const db = await this.open();
    const tx = db.transaction(STORE, 'readwrite');
    const key = idbKey(entry);
    await tx.store.put(LedgerRowSchema.parse(row), key);
    let excess = (await tx.store.count()) - this.capacity;
    let cursor = excess > 0 ? await tx.store.index('bySettled').openCursor() : null;
    while (cursor && excess > 0) {
      // The entry just written is never the one that makes room for itself.
      if (indexedDB.cmp(cursor.primaryKey, key) !== 0) {
        await cursor.delete();
        excess -= 1;
      }
      cursor = await cursor.continue();
    }
    await tx.done;
  }

  private settledAt(): number {
    this.lastSettled = Math.max(this.now(), this.lastSettled + 0.001);
    return this.lastSettled;
  }

  private open(): Promise<IDBPDatabase<LedgerDb>> {
    this.db ??= openDB<LedgerDb>(this.name, SCHEMA_VERSION, {
      upgrade(db) {
        const store = db.createObjectStore(STORE);
        store.createIndex('bySettled', 'settledAt');
      },
      // Another tab needs a newer schema: let it, and reopen on our next request.
      blocking: () => void this.close(),
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
