/**
 * An in-memory {@link OperationLedger}: for tests, and pages without
 * IndexedDB, that need no evidence across reloads. Entries are stored as JSON
 * copies, so nothing a caller holds can change what was recorded. Bounded like
 * the IndexedDB ledger: beyond its capacity the least recently written entries
 * with a definite outcome go first; `attempted` and `uncertain` ones stay.
 */
import {
  entryForRest,
  isEvictable,
  type LedgerEntry,
  type LedgerKey,
  type OperationLedger,
} from './operationLedger.js';

/** Most entries kept by default. */
export const MEMORY_LEDGER_CAPACITY = 10_000;

function copy(entry: LedgerEntry): LedgerEntry {
  return JSON.parse(JSON.stringify(entry)) as LedgerEntry;
}

function mapKey(key: LedgerKey): string {
  return JSON.stringify([key.sessionId, key.namespace, key.operationId]);
}

/** An operation ledger kept in memory. */
export class MemoryLedger implements OperationLedger {
  /** Insertion order is write order: a write moves an entry to the end. */
  private readonly entries = new Map<string, LedgerEntry>();

  /** @param capacity most entries kept while some can be forgotten (see {@link isEvictable}). */
  constructor(private readonly capacity: number = MEMORY_LEDGER_CAPACITY) {}

  /** The entry of a key, if any. */
  get(key: LedgerKey): Promise<LedgerEntry | undefined> {
    const entry = this.entries.get(mapKey(key));
    return Promise.resolve(entry ? copy(entry) : undefined);
  }

  /** Creates or replaces an entry, then forgets the oldest definite ones beyond capacity. */
  put(entry: LedgerEntry): Promise<void> {
    const k = mapKey(entry);
    this.entries.delete(k);
    this.entries.set(k, copy(entryForRest(entry)));
    this.evict(k);
    return Promise.resolve();
  }

  /** Forgets one entry. */
  delete(key: LedgerKey): Promise<void> {
    this.entries.delete(mapKey(key));
    return Promise.resolve();
  }

  /** How many entries are kept. */
  get size(): number {
    return this.entries.size;
  }

  /** Forgets the oldest definite entries beyond capacity, never the one just written (`keep`). */
  private evict(keep: string): void {
    let excess = this.entries.size - this.capacity;
    if (excess <= 0) return;
    for (const [k, entry] of this.entries) {
      if (excess <= 0) return;
      if (k === keep || !isEvictable(entry.state)) continue;
      this.entries.delete(k);
      excess -= 1;
    }
  }
}
