import { describe, expect, it } from 'vitest';
import { limitExceeded, makeError } from './errors.js';
import { readFrame } from './wire/frameReading.js';
import { REPORTED_LIMITS } from './limits.js';
import type { CallReceipt } from './receipt.js';
import { jsonByteLength } from './jsonLimits.js';
import { compactReceipt, fitReceipt, shrinkOutcome } from './resultFit.js';
import { TargetSchema } from './target.js';

function receipt(mutation: boolean, result: unknown): CallReceipt {
  return {
    operationId: 'op-1',
    origin: 'mcp',
    controlId: mutation ? 'orders.place' : 'orders.list',
    target: { scope: 'session' },
    mutation,
    revisionsBefore: { orders: 1 },
    revisionsAfter: { orders: mutation ? 2 : 1 },
    durationMs: 3,
    result,
  };
}

describe('cross-seam rules in src/protocol (issue 12 item 3)', () => {
  it('SPEC §6 every limit_exceeded names the limit, its max and a next step, whichever side builds it', () => {
    expect([...REPORTED_LIMITS].sort()).toEqual(
      [
        'batchCalls',
        'callArgs',
        'resultBytes',
        'snapshotPixels',
        'snapshotBytes',
        'subscriptionsPerSession',
        'bindingsPerSubscription',
        'eventsPerPoll',
        'jsonDepth',
        'stringLength',
        'catalogBytes',
        'sessionsPerHost',
      ].sort(),
    );
    for (const limit of REPORTED_LIMITS) {
      const error = limitExceeded(limit, 7);
      expect(error).toMatchObject({ code: 'limit_exceeded', retry: 'after_correction', details: { limit, max: 7 } });
      expect(error.message).toMatch(new RegExp(`^Over the ${limit} limit \\(7\\): \\S`));
    }
    expect(limitExceeded('jsonDepth', 24, 'nest the arguments less deeply.').message).toBe(
      'Over the jsonDepth limit (24): nest the arguments less deeply.',
    );
  });

  it('SPEC §3 a compact receipt keeps identity, revisions and evidence and says which limit left the result out', () => {
    const full = receipt(true, { big: 'x'.repeat(100) });
    expect(compactReceipt(full, 'stringLength')).toEqual({
      ...full,
      result: null,
      resultOmitted: { reason: 'result-too-large', limit: 'stringLength' },
    });
  });

  it('SPEC §6 a receipt that does not fit: a mutation keeps a compact receipt, a read is limit_exceeded resultBytes', () => {
    const small = receipt(false, 1);
    expect(fitReceipt(small, jsonByteLength(small))).toEqual({ ok: true, receipt: small });
    const read = receipt(false, 'x'.repeat(500));
    expect(fitReceipt(read, 400, 2048)).toEqual({ ok: false, error: limitExceeded('resultBytes', 2048) });
    const mutation = receipt(true, 'x'.repeat(500));
    expect(fitReceipt(mutation, 400)).toEqual({ ok: true, receipt: compactReceipt(mutation) });
  });

  it('SPEC §3 the batch fit rule: shrinking never reports a call that ran as not run', () => {
    const placed = { index: 0, status: 'fulfilled' as const, receipt: receipt(true, 'x') };
    expect(shrinkOutcome(placed, 100)).toEqual({ ...placed, receipt: compactReceipt(placed.receipt) });
    const read = { index: 1, status: 'fulfilled' as const, receipt: receipt(false, 'x') };
    expect(shrinkOutcome(read, 100)).toEqual({
      index: 1,
      status: 'rejected',
      error: limitExceeded('resultBytes', 100),
    });
    const failed = makeError('broker_rejection', 'no', {
      details: { result: { partial: true }, limit: 'resultBytes' },
    });
    expect(shrinkOutcome({ index: 2, status: 'rejected', error: failed }, 100)).toEqual({
      index: 2,
      status: 'rejected',
      error: { ...failed, details: { limit: 'resultBytes' } },
    });
    const skipped = { index: 3, status: 'skipped' as const, reason: 'stop-on-error' as const };
    expect(shrinkOutcome(skipped, 100)).toBe(skipped);
  });

  it('SPEC §9 a frame is read size first, then JSON, then depth, then its schema; a refusal carries no content', () => {
    expect(readFrame(TargetSchema, '{"scope":"chart","chartId":"main"}', { maxBytes: 1000 })).toEqual({
      ok: true,
      frame: { scope: 'chart', chartId: 'main' },
    });
    expect(readFrame(TargetSchema, '€'.repeat(400), { maxBytes: 1000 })).toEqual({ ok: false, reason: 'too-large' });
    expect(readFrame(TargetSchema, '{"scope":', { maxBytes: 1000 })).toEqual({ ok: false, reason: 'not-json' });
    expect(readFrame(TargetSchema, '[[[[1]]]]', { maxBytes: 1000, maxDepth: 3 })).toEqual({
      ok: false,
      reason: 'schema',
    });
    expect(readFrame(TargetSchema, '{"scope":1}', { maxBytes: 1000 })).toEqual({ ok: false, reason: 'schema' });
  });
});
