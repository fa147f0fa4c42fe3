import { describe, expect, it } from 'vitest';
import { SESSION, call, order, owned, request, terminal } from '../test/fixtures.js';
import { errorOf, receiptOf } from '../test/expect.js';
import { MemoryLedger } from './memoryLedger.js';
import { LedgerEntrySchema, type LedgerEntry, type OperationLedger } from './operationLedger.js';

/** A ledger that keeps only JSON text and validates every read, as an IndexedDB store would. */
class TextLedger implements OperationLedger {
  readonly rows = new Map<string, string>();
  get(namespace: string, operationId: string): Promise<LedgerEntry | undefined> {
    const text = this.rows.get(`${namespace}/${operationId}`);
    return Promise.resolve(text === undefined ? undefined : LedgerEntrySchema.parse(JSON.parse(text)));
  }
  put(entry: LedgerEntry): Promise<void> {
    this.rows.set(`${entry.namespace}/${entry.operationId}`, JSON.stringify(entry));
    return Promise.resolve();
  }
  delete(namespace: string, operationId: string): Promise<void> {
    this.rows.delete(`${namespace}/${operationId}`);
    return Promise.resolve();
  }
}

describe('SPEC §5 operation ledger', () => {
  it('entries are plain JSON that round-trip through LedgerEntrySchema', async () => {
    const ledger = new TextLedger();
    const { host, broker } = terminal({ ledger });
    const op = call('orders.placeOrder', SESSION, [order()], owned('j-1'));
    const first = receiptOf(await host.handle(request(op)));
    const row = LedgerEntrySchema.parse(JSON.parse(ledger.rows.get('ns1/j-1')!));
    expect(row).toMatchObject({ state: 'completed', attempts: 1, controlId: 'orders.placeOrder', mutation: true });
    expect(receiptOf(await host.handle(request(op)))).toEqual(first);
    expect(broker.placeCalls).toBe(1);
  });

  it('survives a page reload: a new host on the same ledger returns the recorded receipt', async () => {
    const ledger = new MemoryLedger();
    const before = terminal({ ledger });
    const op = call('orders.placeOrder', SESSION, [order()], owned('reload-1'));
    const first = receiptOf(await before.host.handle(request(op)));
    const after = terminal({ ledger });
    expect(receiptOf(await after.host.handle(request(op)))).toEqual(first);
    expect(after.broker.placeCalls).toBe(0);
  });

  it('an attempt recorded without an outcome (reload mid-dispatch) is uncertain, never redispatched', async () => {
    const ledger = new MemoryLedger();
    const { host, broker } = terminal({ ledger });
    const op = call('orders.placeOrder', SESSION, [order('GONE')], owned('mid-1'));
    await host.handle(request(call('orders.placeOrder', SESSION, [order('OTHER')], owned('seed'))));
    const seed = (await ledger.get('ns1', 'seed'))!;
    const { fingerprintOf } = await import('./operationLedger.js');
    await ledger.put({
      ...seed,
      operationId: 'mid-1',
      fingerprint: fingerprintOf(op.call),
      state: 'attempted',
      outcome: null,
    });
    const error = errorOf(await host.handle(request(op)));
    expect(error.code).toBe('control_failed');
    expect(error.details?.receipt?.reconciled).toBe(true);
    expect(broker.placeCalls).toBe(1);
  });

  it('MemoryLedger keeps copies and forgets the oldest beyond its capacity', async () => {
    const ledger = new MemoryLedger(2);
    const entry = (operationId: string): LedgerEntry => ({
      namespace: 'n',
      operationId,
      fingerprint: 'f',
      state: 'completed',
      attempts: 1,
      controlId: 'x.y',
      target: { scope: 'session' },
      mutation: true,
      revisionsBefore: {},
      dispatchedAt: '2026-01-01T00:00:00.000Z',
      updatedAt: '2026-01-01T00:00:00.000Z',
      outcome: null,
    });
    const a = entry('a');
    await ledger.put(a);
    a.fingerprint = 'changed';
    expect((await ledger.get('n', 'a'))?.fingerprint).toBe('f');
    await ledger.put(entry('b'));
    await ledger.put(entry('c'));
    expect(await ledger.get('n', 'a')).toBeUndefined();
    expect(ledger.size).toBe(2);
    await ledger.delete('n', 'b');
    expect(await ledger.get('n', 'b')).toBeUndefined();
    expect(await ledger.get('other', 'c')).toBeUndefined();
  });

  it('a ledger that cannot record the attempt means nothing is dispatched', async () => {
    const failing: OperationLedger = {
      get: () => Promise.resolve(undefined),
      put: () => Promise.reject(new Error('quota')),
      delete: () => Promise.resolve(),
    };
    const { host, broker } = terminal({ ledger: failing });
    const error = errorOf(await host.handle(request(call('orders.placeOrder', SESSION, [order()], owned('q-1')))));
    expect(error.code).toBe('internal_error');
    expect(broker.placeCalls).toBe(0);
  });
});
