/**
 * The ledger a host gets when it names none: IndexedDB when the page has it
 * (evidence survives a reload, SPEC §5), memory otherwise (Node, tests).
 */
import { IdbLedger } from './idbLedger.js';
import { MemoryLedger } from './memoryLedger.js';
import type { OperationLedger } from './operationLedger.js';

/** An {@link IdbLedger} when `indexedDB` exists, else a {@link MemoryLedger}. */
export function defaultLedger(): OperationLedger {
  return typeof indexedDB === 'undefined' ? new MemoryLedger() : new IdbLedger();
}
