import { describe, expect, it } from 'vitest';
import { makeError, type Operation } from '../../../protocol/index.js';
import { requestFrame } from '../../testing/scriptedRelay.js';
import { ACTIVITY_KEPT, activityOf, pushActivity } from './activity.js';

const target = { scope: 'session' } as const;
const relayCall = (controlId: string) => ({
  target,
  controlId,
  args: ['secret value'],
  operationId: 'op',
  callerOperationId: false,
});
const AT = '2026-01-01T00:00:00.000Z';

describe('SPEC §10 the popup’s activity names control, outcome and duration, never argument values', () => {
  it('a call: its control, ok or the error code, the receipt’s duration', () => {
    const op: Operation = { kind: 'call', call: relayCall('notes.add') };
    const ok = activityOf(
      requestFrame('r1', 's', op),
      { ok: true, data: { durationMs: 12, result: 'secret value' } },
      40,
      AT,
    );
    expect(ok).toEqual([{ at: AT, controlId: 'notes.add', outcome: 'ok', durationMs: 12 }]);
    const failed = activityOf(
      requestFrame('r2', 's', op),
      { ok: false, error: makeError('revision_conflict', 'x') },
      5,
      AT,
    );
    expect(failed).toEqual([{ at: AT, controlId: 'notes.add', outcome: 'revision_conflict', durationMs: 5 }]);
    expect(JSON.stringify([ok, failed])).not.toContain('secret');
  });

  it('a batch: one item per outcome, in order', () => {
    const op: Operation = {
      kind: 'batch',
      calls: [relayCall('a.one'), relayCall('a.two'), relayCall('a.three')],
      stopOnError: true,
    };
    const data = {
      atomic: false,
      outcomes: [
        { index: 0, status: 'fulfilled', receipt: { durationMs: 3 } },
        { index: 1, status: 'rejected', error: makeError('broker_rejection', 'no') },
        { index: 2, status: 'skipped', reason: 'stop-on-error' },
      ],
    };
    const items = activityOf(requestFrame('r3', 's', op), { ok: true, data }, 9, AT);
    expect(items.map((i) => `${i.controlId}:${i.outcome}`)).toEqual([
      'a.one:ok',
      'a.two:broker_rejection',
      'a.three:skipped',
    ]);
  });

  it('reads of context are not activity; the list keeps the newest first, bounded', () => {
    expect(activityOf(requestFrame('r4', 's', { kind: 'context', target }), { ok: true, data: {} }, 1, AT)).toEqual([]);
    let list = pushActivity([], []);
    for (let i = 0; i < ACTIVITY_KEPT + 5; i++)
      list = pushActivity(list, [{ at: AT, controlId: `c${i}`, outcome: 'ok', durationMs: i }]);
    expect(list).toHaveLength(ACTIVITY_KEPT);
    expect(list[0]?.controlId).toBe(`c${ACTIVITY_KEPT + 4}`);
  });
});
