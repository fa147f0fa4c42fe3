/**
 * An in-memory {@link OperationLedger}: for tests and pages that need no
 * evidence across reloads. Entries are stored as JSON copies, so nothing a
 * caller holds can change what was recorded.
 */
import type { LedgerEntry, OperationLedger } from './operationLedger.js';

/** Most entries kept by default; the oldest are forgotten first. */
export const MEMORY_LEDGER_CAPACITY = 10_000;

function copy(entry: LedgerEntry): LedgerEntry {
  return JSON.parse(JSON.stringify(entry)) as LedgerEntry;
}

/** An operation ledger kept in memory. */
export class MemoryLedger implements OperationLedger {
  private readonly entries = new Map<string, LedgerEntry>();

  /** @param capacity most entries kept; the least recently written go first. */
  constructor(private readonly capacity: number = MEMORY_LEDGER_CAPACITY) {}

  /** The entry of an operation id in a namespace, if any. */
  get(namespace: string, operationId: string): Promise<LedgerEntry | undefined> {
    const entry = this.entries.get(key(namespace, operationId));
    return Promise.resolve(entry ? copy(entry) : undefined);
  }

  /** Creates or replaces an entry. */
  put(entry: LedgerEntry): Promise<void> {
    const k = key(entry.namespace, entry.operationId);
    this.entries.delete(k);
    this.entries.set(k, copy(entry));
    while (this.entries.size > this.capacity) {
      const oldest = this.entries.keys().next();
      if (oldest.done) break;
      this.entries.delete(oldest.value);
    }
    return Promise.resolve();
  }

  /** Forgets one entry. */
  delete(namespace: string, operationId: string): Promise<void> {
    this.entries.delete(key(namespace, operationId));
    return Promise.resolve();
  }

  /** How many entries are kept. */
  get size(): number {
    return this.entries.size;
  }
}

function key(namespace: string, operationId: string): string {
  return JSON.stringify([namespace, operationId]);
}
