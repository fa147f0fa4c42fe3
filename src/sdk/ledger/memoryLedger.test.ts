import { describe, expect, it } from 'vitest';
import { makeError } from '../../protocol/index.js';
import { MemoryLedger } from './memoryLedger.js';
import { entryForRest, isEvictable, type LedgerEntry, type LedgerState } from './operationLedger.js';

function entry(operationId: string, state: LedgerState = 'completed', sessionId = 's'): LedgerEntry {
  return {
    sessionId,
    namespace: 'n',
    operationId,
    fingerprint: 'f',
    state,
    attempts: 1,
    controlId: 'x.y',
    target: { scope: 'session' },
    mutation: true,
    revisionsBefore: {},
    dispatchedAt: '2026-01-01T00:00:00.000Z',
    updatedAt: '2026-01-01T00:00:00.000Z',
    outcome: null,
  };
}

const key = (operationId: string, sessionId = 's') => ({ sessionId, namespace: 'n', operationId });

describe('SPEC §5 bounded ledger (MemoryLedger)', () => {
  it('keeps copies: changing a written or read entry changes nothing recorded', async () => {
    const ledger = new MemoryLedger();
    const a = entry('a');
    await ledger.put(a);
    a.fingerprint = 'changed';
    const read = await ledger.get(key('a'));
    read!.fingerprint = 'changed too';
    expect((await ledger.get(key('a')))?.fingerprint).toBe('f');
    await ledger.delete(key('a'));
    expect(await ledger.get(key('a'))).toBeUndefined();
  });

  it('keys include the session: the same namespace and id in two sessions are two entries', async () => {
    const ledger = new MemoryLedger();
    await ledger.put(entry('a', 'completed', 's1'));
    expect(await ledger.get(key('a', 's2'))).toBeUndefined();
    expect((await ledger.get(key('a', 's1')))?.sessionId).toBe('s1');
  });

  it('beyond capacity forgets the oldest definite entries first', async () => {
    const ledger = new MemoryLedger(2);
    await ledger.put(entry('a'));
    await ledger.put(entry('b', 'rejected'));
    await ledger.put(entry('c', 'refused'));
    expect(await ledger.get(key('a'))).toBeUndefined();
    expect(await ledger.get(key('b'))).toBeDefined();
    expect(ledger.size).toBe(2);
  });

  it('never evicts an attempted or uncertain entry, whatever the cap', async () => {
    const ledger = new MemoryLedger(2);
    await ledger.put(entry('in-flight', 'attempted'));
    await ledger.put(entry('unknown', 'uncertain'));
    await ledger.put(entry('done-1'));
    await ledger.put(entry('done-2'));
    await ledger.put(entry('late', 'uncertain'));
    expect((await ledger.get(key('in-flight')))?.state).toBe('attempted');
    expect((await ledger.get(key('unknown')))?.state).toBe('uncertain');
    expect((await ledger.get(key('late')))?.state).toBe('uncertain');
    expect(await ledger.get(key('done-1'))).toBeUndefined();
    expect(await ledger.get(key('done-2'))).toBeUndefined();
    expect(ledger.size).toBe(3);
  });

  it('never evicts the entry it just wrote to make room for it', async () => {
    const ledger = new MemoryLedger(1);
    await ledger.put(entry('stuck', 'uncertain'));
    await ledger.put(entry('fresh'));
    expect((await ledger.get(key('fresh')))?.state).toBe('completed');
    await ledger.put(entry('fresher'));
    expect(await ledger.get(key('fresh'))).toBeUndefined();
    expect(await ledger.get(key('fresher'))).toBeDefined();
  });

  it('a rewrite moves an entry to the newest position (an uncertain entry reconciled later)', async () => {
    const ledger = new MemoryLedger(2);
    await ledger.put(entry('a', 'uncertain'));
    await ledger.put(entry('b'));
    await ledger.put(entry('a'));
    await ledger.put(entry('c'));
    expect(await ledger.get(key('b'))).toBeUndefined();
    expect(await ledger.get(key('a'))).toBeDefined();
  });

  it('only completed, rejected and refused entries are evictable', () => {
    const states: LedgerState[] = ['attempted', 'completed', 'rejected', 'refused', 'uncertain'];
    expect(states.filter(isEvictable)).toEqual(['completed', 'rejected', 'refused']);
  });
});

describe('SPEC §4 broker text at rest in the ledger', () => {
  it('redacts broker text in a recorded error and result, idempotently', async () => {
    const ledger = new MemoryLedger();
    const error = makeError('broker_rejection', 'The broker said no.', {
      broker_message: '  rejected:\n\n  insufficient   margin ',
      details: { result: { note: 'a\tb' } },
    });
    await ledger.put({ ...entry('r', 'rejected'), outcome: { ok: false, error } });
    const stored = await ledger.get(key('r'));
    const outcome = stored?.outcome;
    if (!outcome || outcome.ok) throw new Error('expected a recorded error');
    expect(outcome.error.broker_message).toBe('rejected: insufficient margin');
    expect(outcome.error.details?.result).toEqual({ note: 'a b' });
    expect(entryForRest(stored)).toEqual(stored);
  });

  it('redacts a recorded receipt result and bounds long text', async () => {
    const ledger = new MemoryLedger();
    const receipt = {
      operationId: 'ok',
      origin: 'mcp' as const,
      controlId: 'x.y',
      target: { scope: 'session' as const },
      mutation: true,
      revisionsBefore: {},
      revisionsAfter: {},
      durationMs: 1,
      result: { message: `${'word '.repeat(400)}` },
    };
    await ledger.put({ ...entry('ok'), outcome: { ok: true, receipt } });
    const outcome = (await ledger.get(key('ok')))?.outcome;
    if (!outcome?.ok) throw new Error('expected a recorded receipt');
    const message = (outcome.receipt.result as { message: string }).message;
    expect(message.length).toBeLessThanOrEqual(1000);
    expect(message.endsWith('…')).toBe(true);
  });
});
