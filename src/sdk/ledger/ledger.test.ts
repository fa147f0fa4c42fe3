import { describe, expect, it } from 'vitest';
import { createTerminalHost } from '../host.js';
import {
  SESSION,
  FakeBroker,
  call,
  order,
  ordersController,
  ordersImpl,
  owned,
  request,
  terminal,
} from '../testing/fixtures.js';
import { errorOf, receiptOf } from '../testing/expect.js';
import { MemoryLedger } from './memoryLedger.js';
import {
  LedgerEntrySchema,
  fingerprintOf,
  type LedgerEntry,
  type LedgerKey,
  type OperationLedger,
} from './operationLedger.js';

/** A ledger that keeps only JSON text and validates every read, as the IndexedDB ledger does. */
class TextLedger implements OperationLedger {
  readonly rows = new Map<string, string>();
  static key(key: LedgerKey): string {
    return `${key.sessionId}/${key.namespace}/${key.operationId}`;
  }
  get(key: LedgerKey): Promise<LedgerEntry | undefined> {
    const text = this.rows.get(TextLedger.key(key));
    return Promise.resolve(text === undefined ? undefined : LedgerEntrySchema.parse(JSON.parse(text)));
  }
  put(entry: LedgerEntry): Promise<void> {
    this.rows.set(TextLedger.key(entry), JSON.stringify(entry));
    return Promise.resolve();
  }
  delete(key: LedgerKey): Promise<void> {
    this.rows.delete(TextLedger.key(key));
    return Promise.resolve();
  }
}

/** A "reloaded" page: a new host on the same ledger whose orders mount cannot reconcile. */
function reloaded(ledger: OperationLedger) {
  const broker = new FakeBroker();
  const host = createTerminalHost({ environment: 'paper', grant: 'trade', ledger });
  host.mount(SESSION, ordersController, ordersImpl(broker));
  return { host, broker };
}

async function until(condition: () => boolean): Promise<void> {
  for (let i = 0; i < 100 && !condition(); i += 1) await new Promise((r) => setTimeout(r, 1));
  expect(condition()).toBe(true);
}

describe('SPEC §5 operation ledger', () => {
  it('entries are plain JSON keyed by (sessionId, namespace, operationId) that round-trip through LedgerEntrySchema', async () => {
    const ledger = new TextLedger();
    const { host, broker } = terminal({ ledger });
    const op = call('orders.placeOrder', SESSION, [order()], owned('j-1'));
    const first = receiptOf(await host.handle(request(op)));
    const row = LedgerEntrySchema.parse(JSON.parse(ledger.rows.get('s1/ns1/j-1')!));
    expect(row).toMatchObject({ sessionId: 's1', state: 'completed', attempts: 1, controlId: 'orders.placeOrder' });
    expect(receiptOf(await host.handle(request(op)))).toEqual(first);
    expect(broker.placeCalls).toBe(1);
  });

  it('the same namespace and operationId in another session share nothing', async () => {
    const { host, broker } = terminal();
    const op = call('orders.placeOrder', SESSION, [order('X1')], owned('shared'));
    receiptOf(await host.handle(request(op)));
    const other = call('orders.placeOrder', SESSION, [order('X2')], owned('shared'));
    receiptOf(await host.handle(request(other, { sessionId: 's2' })));
    expect(broker.placeCalls).toBe(2);
  });

  it('survives a page reload: a new host on the same ledger returns the recorded receipt and dispatches nothing', async () => {
    const ledger = new MemoryLedger();
    const before = terminal({ ledger });
    const op = call('orders.placeOrder', SESSION, [order()], owned('reload-1'));
    const first = receiptOf(await before.host.handle(request(op)));
    const after = reloaded(ledger);
    expect(receiptOf(await after.host.handle(request(op)))).toEqual(first);
    expect(after.broker.placeCalls).toBe(0);
  });

  it('an attempt whose page died mid-dispatch is uncertain_execution after the reload, never redispatched', async () => {
    const ledger = new MemoryLedger();
    const before = terminal({ ledger });
    before.broker.next({ kind: 'hang' });
    const op = call('orders.placeOrder', SESSION, [order('DIED')], owned('mid-1'));
    void before.host.handle(request(op));
    await until(() => before.broker.placeCalls === 1);
    expect((await ledger.get({ sessionId: 's1', namespace: 'ns1', operationId: 'mid-1' }))?.state).toBe('attempted');
    const after = reloaded(ledger);
    const error = errorOf(await after.host.handle(request(op)));
    expect(error).toMatchObject({ code: 'uncertain_execution', retry: 'after_reconcile' });
    expect(error.details?.receipt?.operationId).toBe('mid-1');
    expect(errorOf(await after.host.handle(request(op))).code).toBe('uncertain_execution');
    expect(after.broker.placeCalls).toBe(0);
  });

  it('an attempted entry is reconciled when the mount can prove nothing happened', async () => {
    const ledger = new MemoryLedger();
    const { host, broker } = terminal({ ledger });
    const op = call('orders.placeOrder', SESSION, [order('GONE')], owned('mid-2'));
    await ledger.put({
      sessionId: 's1',
      namespace: 'ns1',
      operationId: 'mid-2',
      fingerprint: fingerprintOf(op.call),
      state: 'attempted',
      attempts: 1,
      controlId: 'orders.placeOrder',
      target: SESSION,
      mutation: true,
      revisionsBefore: {},
      dispatchedAt: '2026-01-01T00:00:00.000Z',
      updatedAt: '2026-01-01T00:00:00.000Z',
      outcome: null,
    });
    const error = errorOf(await host.handle(request(op)));
    expect(error.code).toBe('control_failed');
    expect(error.details?.receipt?.reconciled).toBe(true);
    expect(broker.placeCalls).toBe(0);
  });

  it('an entry that cannot be read back is internal_error telling to reconcile, and nothing is dispatched', async () => {
    const ledger = new TextLedger();
    const { host, broker } = terminal({ ledger });
    ledger.rows.set('s1/ns1/bad-1', '{"state":"completed","truncated":');
    const error = errorOf(await host.handle(request(call('orders.placeOrder', SESSION, [order()], owned('bad-1')))));
    expect(error).toMatchObject({ code: 'internal_error', retry: 'never' });
    expect(error.message).toMatch(/Reconcile/);
    expect(broker.placeCalls).toBe(0);
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

  it('a call or batch without a session id is refused before the dispatcher', async () => {
    const { host, broker } = terminal();
    const op = call('orders.placeOrder', SESSION, [order()], owned('nosession'));
    const bare = { ...request(op), sessionId: undefined as unknown as string };
    expect(errorOf(await host.handle(bare)).code).toBe('internal_error');
    const batch = { ...request({ kind: 'batch', calls: [op.call], stopOnError: true }), sessionId: '' };
    expect(errorOf(await host.handle(batch)).code).toBe('internal_error');
    expect(broker.placeCalls).toBe(0);
  });
});
