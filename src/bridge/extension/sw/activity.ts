/**
 * The extension popup's recent activity per site (SPEC §10): which control
 * ran, its outcome and how long it took, read from the relay request and the
 * answer that leaves the service worker. Argument values and results never
 * enter it.
 */
import type { ActivityItem } from '../../../protocol/wire/extensionLink.js';
import type { RequestFrame } from '../../../protocol/index.js';
import type { RelayOutcome } from '../../relay/clientFrames.js';

/** Items kept per site. */
export const ACTIVITY_KEPT = 20;

interface BatchShape {
  outcomes: { status: string; index: number; receipt?: { durationMs?: unknown }; error?: { code?: unknown } }[];
}

function batchOutcomes(data: unknown): BatchShape['outcomes'] {
  const outcomes = (data as Partial<BatchShape> | null)?.outcomes;
  return Array.isArray(outcomes) ? outcomes : [];
}

function durationOf(value: unknown, fallback: number): number {
  return typeof value === 'number' && Number.isFinite(value) && value >= 0 ? value : fallback;
}

function outcomeText(status: string, error: { code?: unknown } | undefined): string {
  if (status === 'fulfilled') return 'ok';
  if (status === 'skipped') return 'skipped';
  return typeof error?.code === 'string' ? error.code : 'error';
}

/** The activity items of one answered request (none for reads of context, lists, subscriptions). */
export function activityOf(
  request: RequestFrame,
  outcome: RelayOutcome,
  durationMs: number,
  at: string,
): ActivityItem[] {
  const { op } = request;
  if (op.kind === 'call') {
    const result = outcome.ok ? 'ok' : outcome.error.code;
    const receipt = outcome.ok ? (outcome.data as { durationMs?: unknown } | null) : null;
    return [
      { at, controlId: op.call.controlId, outcome: result, durationMs: durationOf(receipt?.durationMs, durationMs) },
    ];
  }
  if (op.kind === 'snapshot') {
    return [{ at, controlId: 'snapshot', outcome: outcome.ok ? 'ok' : outcome.error.code, durationMs }];
  }
  if (op.kind !== 'batch') return [];
  if (!outcome.ok) {
    return op.calls.map((call) => ({ at, controlId: call.controlId, outcome: outcome.error.code, durationMs: 0 }));
  }
  return batchOutcomes(outcome.data).flatMap((entry) => {
    const call = op.calls[entry.index];
    if (!call) return [];
    const duration = entry.status === 'fulfilled' ? durationOf(entry.receipt?.durationMs, 0) : 0;
    return [{ at, controlId: call.controlId, outcome: outcomeText(entry.status, entry.error), durationMs: duration }];
  });
}

/** Adds items to a site's list, newest first, keeping {@link ACTIVITY_KEPT}. */
export function pushActivity(list: readonly ActivityItem[], items: readonly ActivityItem[]): ActivityItem[] {
  return [...[...items].reverse(), ...list].slice(0, ACTIVITY_KEPT);
}
