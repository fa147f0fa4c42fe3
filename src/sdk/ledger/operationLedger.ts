/**
 * The operation ledger (SPEC §5): what happened to each operation id of each
 * attachment namespace. Storage-agnostic behind a small async interface; every
 * entry is plain JSON so an IndexedDB store can keep it across reloads and
 * validate it on the way back in with {@link LedgerEntrySchema}.
 */
import { z } from 'zod';
import {
  CallReceiptSchema,
  ErrorObjectSchema,
  RevisionsSchema,
  TargetSchema,
  canonicalJson,
  type RelayCall,
} from '../../protocol/index.js';

/**
 * Where an operation stands: `attempted` (dispatched, no outcome recorded yet),
 * `completed`, `rejected` (a definite "no"; reuse returns it), `refused` (a
 * definite refusal before acceptance; reuse tries again), `uncertain`.
 */
export const LedgerStateSchema = z.enum(['attempted', 'completed', 'rejected', 'refused', 'uncertain']);
/** Where an operation stands. */
export type LedgerState = z.infer<typeof LedgerStateSchema>;

/** The recorded outcome of an operation. */
export const LedgerOutcomeSchema = z.discriminatedUnion('ok', [
  z.object({ ok: z.literal(true), receipt: CallReceiptSchema }).strict(),
  z.object({ ok: z.literal(false), error: ErrorObjectSchema }).strict(),
]);
/** The recorded outcome of an operation. */
export type LedgerOutcome = z.infer<typeof LedgerOutcomeSchema>;

/** One operation of one namespace. */
export const LedgerEntrySchema = z
  .object({
    namespace: z.string(),
    operationId: z.string(),
    /** Canonical JSON of controlId, target, args and expectedRevisions as submitted. */
    fingerprint: z.string(),
    state: LedgerStateSchema,
    /** How many times it was dispatched (a refusal allows another attempt). */
    attempts: z.number().int().nonnegative(),
    controlId: z.string(),
    target: TargetSchema,
    mutation: z.boolean(),
    revisionsBefore: RevisionsSchema,
    dispatchedAt: z.string(),
    updatedAt: z.string(),
    outcome: LedgerOutcomeSchema.nullable(),
  })
  .strict();
/** One operation of one namespace. */
export type LedgerEntry = z.infer<typeof LedgerEntrySchema>;

/** Where operation evidence is kept. Two namespaces never share an entry. */
export interface OperationLedger {
  /** The entry of an operation id in a namespace, if any. */
  get(namespace: string, operationId: string): Promise<LedgerEntry | undefined>;
  /** Creates or replaces the entry of (entry.namespace, entry.operationId). */
  put(entry: LedgerEntry): Promise<void>;
  /** Forgets one entry. */
  delete(namespace: string, operationId: string): Promise<void>;
}

/** The byte-equivalence fingerprint of a call, as submitted (before the operation id is merged in). */
export function fingerprintOf(call: Pick<RelayCall, 'controlId' | 'target' | 'args' | 'expectedRevisions'>): string {
  return canonicalJson({
    controlId: call.controlId,
    target: call.target,
    args: call.args,
    expectedRevisions: call.expectedRevisions,
  });
}
