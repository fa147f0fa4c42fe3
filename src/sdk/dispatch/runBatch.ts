/**
 * `tradescript_batch` on the page (SPEC §3): calls run in order through the
 * same dispatcher as `tradescript_call`, exactly one outcome per input, not
 * atomic. Response space is reserved before each next call; when the
 * aggregate would not fit, the last executed mutation keeps a compact receipt
 * and the rest are skipped with `response-size-limit`.
 */
import {
  ENVELOPE_RESERVE_BYTES,
  jsonByteLength,
  shrinkOutcome,
  type BatchData,
  type BatchOutcome,
  type RelayCall,
} from '../../protocol/index.js';
import type { CallEnv, CallOutcome } from '../core.js';

/** Space kept free before each next call: room for its compact receipt or its error. */
export const CALL_RESERVE_BYTES = 4096;

/** What a batch runs each call with. */
export type RunCall = (call: RelayCall) => Promise<CallOutcome>;

function toOutcome(index: number, outcome: CallOutcome): BatchOutcome {
  return outcome.ok
    ? { index, status: 'fulfilled', receipt: outcome.receipt }
    : { index, status: 'rejected', error: outcome.error };
}

function entryBytes(entry: BatchOutcome): number {
  return jsonByteLength(entry) + 1;
}

function skipped(index: number, reason: 'stop-on-error' | 'response-size-limit'): BatchOutcome {
  return { index, status: 'skipped', reason };
}

/** Options of one batch run. */
export interface BatchRun {
  readonly calls: readonly RelayCall[];
  readonly stopOnError: boolean;
  readonly limits: CallEnv['limits'];
  readonly run: RunCall;
  readonly progress?: (done: number, total: number) => void;
}

/** Runs a batch to one outcome per input. */
export async function runBatch({ calls, stopOnError, limits, run, progress }: BatchRun): Promise<BatchData> {
  const outcomes: BatchOutcome[] = [];
  const skipBytes = (from: number) => (calls.length - from) * entryBytes(skipped(calls.length, 'response-size-limit'));
  const budget = limits.resultBytes - ENVELOPE_RESERVE_BYTES - jsonByteLength({ atomic: false, outcomes: [] });
  let used = 0;
  let stop: 'stop-on-error' | 'response-size-limit' | null = null;
  for (const [index, call] of calls.entries()) {
    const room = budget - used - skipBytes(index + 1);
    if (stop === null && room < CALL_RESERVE_BYTES) stop = 'response-size-limit';
    if (stop !== null) {
      outcomes.push(skipped(index, stop));
      continue;
    }
    let entry = toOutcome(index, await run(call));
    if (entryBytes(entry) > room) {
      entry = shrinkOutcome(entry, limits.resultBytes);
      stop = 'response-size-limit';
    }
    outcomes.push(entry);
    used += entryBytes(entry);
    reportProgress(progress, index + 1, calls.length);
    if (stop === null && stopOnError && entry.status === 'rejected') stop = 'stop-on-error';
  }
  return { atomic: false, outcomes };
}

function reportProgress(progress: BatchRun['progress'], done: number, total: number): void {
  try {
    progress?.(done, total);
  } catch {
    // A failing progress listener must not change any outcome.
  }
}
