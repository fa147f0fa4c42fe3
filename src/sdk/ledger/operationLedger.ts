/**
 * The operation ledger (SPEC §5): what happened to each operation id, keyed by
 * (sessionId, attachment namespace, operationId). Storage-agnostic behind a
 * small async interface; every entry is plain JSON so an IndexedDB store can
 * keep it across reloads and validate it on the way back in with
 * {@link LedgerEntrySchema}.
 */
import * as z from 'zod/mini';
import {
  CallReceiptSchema,
  ErrorObjectSchema,
  RevisionsSchema,
  TargetSchema,
  canonicalJson,
  type RelayCall,
} from '../../protocol/index.js';
import { redactBrokerText, redactJson } from '../dispatch/redact.js';

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
  z.strictObject({ ok: z.literal(true), receipt: CallReceiptSchema }),
  z.strictObject({ ok: z.literal(false), error: ErrorObjectSchema }),
]);
/** The recorded outcome of an operation. */
export type LedgerOutcome = z.infer<typeof LedgerOutcomeSchema>;

/** One operation of one attachment namespace in one session. */
export const LedgerEntrySchema = z.strictObject({
  /** The session (terminal tab) the call came through; two tabs of one origin share nothing. */
  sessionId: z.string(),
  namespace: z.string(),
  operationId: z.string(),
  /** Canonical JSON of controlId, target, args and expectedRevisions as submitted. */
  fingerprint: z.string(),
  state: LedgerStateSchema,
  /** How many times it was dispatched (a refusal allows another attempt). */
  attempts: z.int().check(z.nonnegative()),
  controlId: z.string(),
  target: TargetSchema,
  mutation: z.boolean(),
  revisionsBefore: RevisionsSchema,
  dispatchedAt: z.string(),
  updatedAt: z.string(),
  outcome: z.nullable(LedgerOutcomeSchema),
});
/** One operation of one attachment namespace in one session. */
export type LedgerEntry = z.infer<typeof LedgerEntrySchema>;

/** The identity of one ledger entry (SPEC §5). */
export interface LedgerKey {
  readonly sessionId: string;
  readonly namespace: string;
  readonly operationId: string;
}

/**
 * Where operation evidence is kept. Two keys never share an entry. `get`
 * rejects when an entry exists but cannot be read back faithfully: the caller
 * must then treat the operation as unknown and dispatch nothing.
 */
export interface OperationLedger {
  /** The entry of a key, if any. */
  get(key: LedgerKey): Promise<LedgerEntry | undefined>;
  /** Creates or replaces the entry of the entry's own key. */
  put(entry: LedgerEntry): Promise<void>;
  /** Forgets one entry. */
  delete(key: LedgerKey): Promise<void>;
}

/** The key of an entry. */
export function keyOf(entry: LedgerKey): LedgerKey {
  return { sessionId: entry.sessionId, namespace: entry.namespace, operationId: entry.operationId };
}

/** True when two keys name the same entry. */
export function sameKey(a: LedgerKey, b: LedgerKey): boolean {
  return a.sessionId === b.sessionId && a.namespace === b.namespace && a.operationId === b.operationId;
}

/**
 * Whether a bounded ledger may forget an entry to make room: only one with a
 * definite recorded outcome. An `attempted` (in flight, or its page died) or
 * `uncertain` entry is kept whatever the cap, so a retry never redispatches it.
 */
export function isEvictable(state: LedgerState): boolean {
  return state === 'completed' || state === 'rejected' || state === 'refused';
}

/**
 * An entry as it may rest (SPEC §4): broker text in the recorded error and
 * results redacted again. Redaction is idempotent, so text the dispatcher
 * already redacted is unchanged; this guards the resting copy itself.
 */
export function entryForRest(entry: LedgerEntry): LedgerEntry {
  const { outcome } = entry;
  if (outcome === null) return entry;
  if (outcome.ok) {
    const receipt = { ...outcome.receipt, result: redactJson(outcome.receipt.result) };
    return { ...entry, outcome: { ok: true, receipt } };
  }
  const error = { ...outcome.error, broker_message: redactBrokerText(outcome.error.broker_message) };
  const details = error.details;
  if (details && details.result !== undefined) error.details = { ...details, result: redactJson(details.result) };
  return { ...entry, outcome: { ok: false, error } };
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
