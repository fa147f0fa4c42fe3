/**
 * Trading with money at stake, end to end (SPEC §4, §5, §10): a real MCP
 * client trades the demo's paper broker in headless Chromium through the real
 * CLI. Execution opt-in, the person's grant raised in `<tradescript-bridge>`,
 * preview → place → modify → cancel, operation identity across a reload,
 * uncertain outcomes and their reconciliation, broker failure semantics, and
 * a seeded fault campaign whose broker state must equal what was dispatched.
 */
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CallReceipt, ContextData, ErrorObject, ListControlsData } from '../src/protocol/index.js';
import type { Order } from '../demo/src/broker/schemas.js';
import type { DemoHooks } from '../demo/src/testHooks.js';
import { openTerminal, type Terminal, type Transport } from './harness/terminal.js';

const SESSION = { scope: 'session' } as const;
const ACCOUNT = 'PAPER-001';

/** Runs `read` on the demo's hooks in the page; it may use nothing but its arguments (`arg` is JSON). */
const demo = <T, A = undefined>(page: Page, read: (hooks: DemoHooks, arg: A) => T, arg?: A): Promise<T> =>
  page.evaluate(`(${read.toString()})(window.__tradescriptDemo, ${JSON.stringify(arg ?? null)})`) as Promise<T>;

/** The session's `orders` revision. */
async function ordersRevision(t: Terminal): Promise<number> {
  const context = await t.call<ContextData>('tradescript_get_context', { sessionId: t.sessionId, target: SESSION });
  return context.envelope.data!.controllerRevisions['orders']?.['orders'] ?? 0;
}

/** The orders revision a guarded `orders.*` mutation must carry (none for other controls). */
async function revisionsFor(t: Terminal, controlId: string): Promise<{ orders: number } | undefined> {
  const guarded = /^orders\.(placeOrder|modifyOrder|cancelOrder)$/.test(controlId);
  return guarded ? { orders: await ordersRevision(t) } : undefined;
}

/**
 * One `tradescript_call` on the session target. Guarded `orders.*` mutations
 * carry `expectedRevisions` (read now unless given: a faithful retry must send
 * the same ones, since they are part of the call's bytes).
 */
async function trade(
  t: Terminal,
  controlId: string,
  args: unknown[],
  operationId?: string,
  expectedRevisions?: { orders: number },
) {
  const revisions = expectedRevisions ?? (await revisionsFor(t, controlId));
  return t.call<CallReceipt>('tradescript_call', {
    sessionId: t.sessionId,
    target: SESSION,
    controlId,
    args,
    ...(revisions ? { expectedRevisions: revisions } : {}),
    ...(operationId ? { context: { operationId } } : {}),
  });
}

/** A small BTC limit buy far below the market (it never fills). */
function limitBuy(clientOrderId: string, quantity = '0.001'): Record<string, string> {
  return {
    accountId: ACCOUNT,
    symbol: 'BTCUSDT',
    side: 'buy',
    type: 'limit',
    quantity,
    limitPrice: '40000',
    clientOrderId,
  };
}

/** The placement arguments of a fresh preview. */
async function preview(t: Terminal, request: Record<string, string>): Promise<unknown> {
  const previewed = await trade(t, 'orders.previewOrder', [request]);
  expect(previewed.envelope.error).toBeNull();
  return (previewed.envelope.data!.result as { placementArguments: unknown }).placementArguments;
}

/** The person opens the bridge dock and picks "Trade" in the element's grant control. */
async function raiseGrant(page: Page): Promise<void> {
  await page.getByTestId('bridge-dock-toggle').click();
  await page.locator('tradescript-bridge label[for="grant-trade"]').click();
  await page.waitForFunction(() => window.__tradescriptDemo?.element().grant === 'trade');
  await page.getByTestId('bridge-dock-toggle').click();
}

/** Reloads the tab and waits until it is paired again; returns its session id. */
async function reload(page: Page): Promise<string> {
  await page.reload();
  await page.waitForFunction(() => window.__tradescriptDemo?.bridgeStatus().state === 'paired', undefined, {
    timeout: 20_000,
  });
  return demo(page, (d) => d.bridgeStatus().sessionId!);
}

const error = (call: { envelope: { error: ErrorObject | null } }): ErrorObject => {
  expect(call.envelope.error).not.toBeNull();
  return call.envelope.error!;
};

const run = Math.random().toString(36).slice(2, 6).toUpperCase();

describe.each<Transport>(['http', 'stdio'])('trading over %s with --enable-trading', (transport) => {
  let t: Terminal;
  const id = (name: string): string => `${transport.slice(0, 1).toUpperCase()}${run}${name}`.slice(0, 20);
  beforeAll(async () => {
    t = await openTerminal(transport, ['--enable-trading']);
  });
  afterAll(async () => {
    await t?.close();
  });

  it('SPEC §11 the ready line and the page say trading is enabled', async () => {
    expect(t.ready.tradingEnabled).toBe(true);
    await expect
      .poll(() => t.page.locator('tradescript-bridge [data-testid=trading]').innerText())
      .toBe('Trading enabled on the server');
  });

  it('SPEC §5 with the grant still write, trade controls are listed unavailable (attachment-grant) and refused', async () => {
    const listed = await t.call<ListControlsData>('tradescript_list_controls', {
      sessionId: t.sessionId,
      target: SESSION,
    });
    expect(listed.envelope.data!.unavailableControls).toContainEqual(
      expect.objectContaining({ control: 'orders.placeOrder', reason: 'attachment-grant' }),
    );
    const refused = await trade(t, 'orders.placeOrder', [await preview(t, limitBuy(id('W1')))], 'op-denied');
    expect(error(refused)).toMatchObject({ code: 'control_unavailable', details: { reason: 'attachment-grant' } });
  });

  it('SPEC §2 §5 §10 the person raises the grant in the element; preview → place → modify → cancel shows in the blotter', async () => {
    await raiseGrant(t.page);
    const context = await t.call<ContextData>('tradescript_get_context', { sessionId: t.sessionId, target: SESSION });
    expect(context.envelope.data!.access).toEqual({ grant: 'trade', adapterMaximum: 'trade', effective: 'trade' });
    const placed = await trade(t, 'orders.placeOrder', [await preview(t, limitBuy(id('P1')))], `${id('op')}-place`);
    expect(placed.envelope.data!.result).toMatchObject({ clientOrderId: id('P1'), status: 'accepted' });
    const orderId = (placed.envelope.data!.result as { orderId: string }).orderId;
    const row = t.page.locator(`[data-testid="blotter-table"] tr[data-order-id="${orderId}"]`);
    await expect.poll(() => row.getAttribute('data-status')).toBe('working');

    const change = { accountId: ACCOUNT, orderId, clientOrderId: id('M1'), quantity: '0.002', limitPrice: '39000' };
    const modifyPreview = await trade(t, 'orders.previewModifyOrder', [change]);
    const modifyArgs = (modifyPreview.envelope.data!.result as { placementArguments: unknown }).placementArguments;
    const modified = await trade(t, 'orders.modifyOrder', [modifyArgs], `${id('op')}-modify`);
    expect(modified.envelope.data!.result).toMatchObject({ orderId, clientOrderId: id('M1'), status: 'modified' });
    await expect.poll(() => row.textContent()).toContain('39,000');

    const cancelled = await trade(t, 'orders.cancelOrder', [{ accountId: ACCOUNT, orderId }], `${id('op')}-cancel`);
    expect(cancelled.envelope.data!.result).toMatchObject({ orderId, status: 'cancelRequested' });
    await expect.poll(() => row.getAttribute('data-status'), { timeout: 5_000 }).toBe('cancelled');
    expect((await demo(t.page, (d) => d.broker.orders())).find((o) => o.orderId === orderId)).toMatchObject({
      clientOrderId: id('M1'),
      quantity: '0.002',
      status: 'cancelled',
      source: 'agent',
    });
  });

  it('SPEC §5 a financial call without operationId is refused before the broker', async () => {
    const placement = await preview(t, limitBuy(id('N1')));
    const before = await demo(t.page, (d) => ({
      orders: d.broker.orders().length,
      sent: d.broker.requests('orders.placeOrder'),
    }));
    expect(error(await trade(t, 'orders.placeOrder', [placement]))).toMatchObject({ code: 'operation_id_required' });
    const after = await demo(t.page, (d) => ({
      orders: d.broker.orders().length,
      sent: d.broker.requests('orders.placeOrder'),
    }));
    expect(after).toEqual(before);
  });

  it('SPEC §5 the same call twice with the same id and bytes places one order, also after a page reload', async () => {
    const placement = await preview(t, limitBuy(id('T1')));
    const args = { sessionId: t.sessionId, target: SESSION, controlId: 'orders.placeOrder', args: [placement] };
    const call = {
      ...args,
      expectedRevisions: { orders: await ordersRevision(t) },
      context: { operationId: `${id('op')}-twice` },
    };
    const [first, second] = await Promise.all([t.call('tradescript_call', call), t.call('tradescript_call', call)]);
    expect(second.envelope.data).toEqual(first.envelope.data);
    const mine = (d: DemoHooks): number => d.broker.orders().filter((o) => o.clientOrderId.endsWith('T1')).length;
    expect(await demo(t.page, mine)).toBe(1);
    expect(await reload(t.page)).toBe(t.sessionId);
    const again = await t.call('tradescript_call', call);
    expect(again.envelope.data).toEqual(first.envelope.data);
    // The paper broker lives in the page: after the reload it is new, and the replay reached it not once.
    expect(await demo(t.page, (d) => d.broker.requests('orders.placeOrder'))).toBe(0);
  });

  it('SPEC §5 a lost response is uncertain_execution with exactly one order; the retry returns the reconciled receipt', async () => {
    const placement = await preview(t, limitBuy(id('L1')));
    await demo(t.page, (d) => d.broker.faults.set('lostResponse:orders.placeOrder:1'));
    const revisions = { orders: await ordersRevision(t) };
    const lost = await trade(t, 'orders.placeOrder', [placement], `${id('op')}-lost`, revisions);
    expect(error(lost)).toMatchObject({ code: 'uncertain_execution', retry: 'after_reconcile' });
    const count = (d: DemoHooks): number => d.broker.orders().filter((o) => o.clientOrderId.endsWith('L1')).length;
    expect(await demo(t.page, count)).toBe(1);
    const retried = await trade(t, 'orders.placeOrder', [placement], `${id('op')}-lost`, revisions);
    expect(retried.envelope.data).toMatchObject({ reconciled: true, result: { clientOrderId: id('L1') } });
    expect(await demo(t.page, count)).toBe(1);
  });

  it('SPEC §4 410 QUOTE_EXPIRED and 409 PRICE_DRIFT_EXCEEDED are broker rejections, never retried', async () => {
    const quote = async (): Promise<string> => {
      const quoted = await trade(t, 'fx.getQuote', [{ from: 'USD', to: 'EUR', amount: '100' }]);
      return (quoted.envelope.data!.result as { quoteId: string }).quoteId;
    };
    const sent = (): Promise<number> => demo(t.page, (d) => d.broker.requests('fx.confirmQuote'));
    const expiring = await quote();
    await demo(t.page, (d) => d.broker.advance(5 * 60_000));
    const before = await sent();
    const expired = await trade(t, 'fx.confirmQuote', [{ quoteId: expiring }], `${id('op')}-410`);
    expect(error(expired)).toMatchObject({ code: 'broker_rejection', status_code: 410, broker_code: 'QUOTE_EXPIRED' });
    expect(await sent()).toBe(before + 1);
    const drifting = await quote();
    await demo(t.page, (d) => d.broker.faults.set('drift:fx.confirmQuote:1'));
    const drifted = await trade(t, 'fx.confirmQuote', [{ quoteId: drifting }], `${id('op')}-409`);
    expect(error(drifted)).toMatchObject({
      code: 'broker_rejection',
      status_code: 409,
      broker_code: 'PRICE_DRIFT_EXCEEDED',
      details: { quote: { originalPrice: expect.any(String), newPrice: expect.any(String), tolerance: '0.0025' } },
    });
    expect(await sent()).toBe(before + 2);
  });

  it('SPEC §5 a 503 on a read is retried and succeeds; on a write it is not retried and is uncertain', async () => {
    const sent = (op: string): Promise<number> => demo(t.page, (d, name: string) => d.broker.requests(name), op);
    await demo(t.page, (d) => d.broker.faults.set('unavailable:orders.list:2'));
    const reads = await sent('orders.list');
    const listed = await trade(t, 'orders.list', [{ accountId: ACCOUNT }]);
    expect(listed.isError).toBe(false);
    expect(await sent('orders.list')).toBe(reads + 3);
    const placement = await preview(t, limitBuy(id('U1')));
    await demo(t.page, (d) => d.broker.faults.set('unavailable:orders.placeOrder:1'));
    const writes = await sent('orders.placeOrder');
    const failed = await trade(t, 'orders.placeOrder', [placement], `${id('op')}-503`);
    expect(error(failed)).toMatchObject({ code: 'uncertain_execution' });
    expect(await sent('orders.placeOrder')).toBe(writes + 1);
  });

  it('SPEC §4 a partial alert deletion returns the typed result in details.result', async () => {
    const context = await t.call<ContextData>('tradescript_get_context', { sessionId: t.sessionId, target: SESSION });
    const alerts = context.envelope.data!.controllerRevisions['alerts']!['alerts']!;
    const deleted = await t.call('tradescript_call', {
      sessionId: t.sessionId,
      target: SESSION,
      controlId: 'alerts.delete',
      args: [{ alertIds: [1, 5, 77] }],
      expectedRevisions: { alerts },
      context: { operationId: `${id('op')}-alerts` },
    });
    expect(error(deleted)).toMatchObject({
      code: 'broker_rejection',
      retry: 'after_reconcile',
      details: {
        result: {
          deleted: [1],
          failedAlerts: [expect.objectContaining({ alertId: 5 }), expect.objectContaining({ alertId: 77 })],
        },
      },
    });
  });

  it('SPEC §5 §10 with "confirm trades" on, a trade waits for the person: the closed dock opens with the question', async () => {
    await t.page.getByTestId('bridge-dock-toggle').click();
    await t.page.locator('tradescript-bridge .confirm-toggle input').check();
    await t.page.getByTestId('bridge-dock-toggle').click();
    await expect.poll(() => t.page.getByTestId('bridge-dock').isHidden()).toBe(true);
    const placement = await preview(t, limitBuy(id('C1')));
    const placing = trade(t, 'orders.placeOrder', [placement], `${id('op')}-confirm`);
    await t.page.locator('tradescript-bridge .approve').click();
    expect((await placing).envelope.data?.result).toMatchObject({ clientOrderId: id('C1'), status: 'accepted' });
    expect(await t.page.getByTestId('bridge-dock').isVisible()).toBe(true);
    await t.page.locator('tradescript-bridge .confirm-toggle input').uncheck();
    expect(t.pageErrors).toEqual([]);
  });
});

describe('SPEC §5 execution opt-in and tool allowlist (http)', () => {
  it('without --enable-trading trade controls are unavailable (adapter-maximum) and refused (execution_disabled)', async () => {
    const t = await openTerminal('http');
    expect(t.ready.tradingEnabled).toBe(false);
    const listed = await t.call<ListControlsData>('tradescript_list_controls', {
      sessionId: t.sessionId,
      target: SESSION,
    });
    expect(listed.envelope.data!.unavailableControls).toContainEqual(
      expect.objectContaining({ control: 'orders.cancelOrder', reason: 'adapter-maximum' }),
    );
    expect(error(await trade(t, 'orders.cancelOrder', [{ accountId: ACCOUNT, orderId: 'O-1' }], 'op-x'))).toMatchObject(
      {
        code: 'execution_disabled',
      },
    );
    await t.close();
  });

  it('--tool-allowlist hides call and batch and answers tool_not_available', async () => {
    const t = await openTerminal('http', ['--tool-allowlist', 'tradescript_get_context,tradescript_list_controls']);
    const { tools } = await t.client.listTools();
    expect(tools.map((tool) => tool.name).sort()).toEqual(['tradescript_get_context', 'tradescript_list_controls']);
    const refused = await t.call('tradescript_call', {
      sessionId: t.sessionId,
      target: SESSION,
      controlId: 'orders.list',
    });
    expect(error(refused)).toMatchObject({ code: 'tool_not_available', retry: 'never' });
    await t.close();
  });
});

describe('SPEC §5 fault campaign: every outcome reconciled, the broker equals what was dispatched', () => {
  it('runs seeded random trades under random faults and page reloads', async () => {
    const t = await openTerminal('http', ['--enable-trading']);
    await raiseGrant(t.page);
    const report = await runCampaign(t, { calls: 300, budgetMs: 48_000, reloads: 3 });
    console.info(`fault campaign: ${JSON.stringify(report)}`);
    expect(report.mismatches).toEqual([]);
    expect(report.calls).toBeGreaterThanOrEqual(100);
    expect(report.uncertain).toBe(report.reconciledHappened + report.reconciledNotHappened);
    await t.close();
  }, 120_000);
});

// ——— The fault campaign ———

type FaultKind = 'lostResponse' | 'unavailable' | 'rateLimited' | 'reject' | 'latency';
const FAULT_KINDS: readonly FaultKind[] = ['lostResponse', 'unavailable', 'rateLimited', 'reject', 'latency'];

/** What the campaign expects of one order at the broker. */
interface Expected {
  clientOrderId: string;
  cancelled: boolean;
}

/** The campaign's counts; the lead quotes them. */
interface CampaignReport {
  seed: number;
  calls: number;
  byControl: Record<string, number>;
  faults: Record<string, number>;
  outcomes: Record<string, number>;
  uncertain: number;
  reconciledHappened: number;
  reconciledNotHappened: number;
  reloads: number;
  ordersChecked: number;
  mismatches: string[];
}

/** mulberry32: a small seeded PRNG, so a failing campaign can be replayed with its seed. */
function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let x = Math.imul(a ^ (a >>> 15), 1 | a);
    x = (x + Math.imul(x ^ (x >>> 7), 61 | x)) ^ x;
    return ((x ^ (x >>> 14)) >>> 0) / 4_294_967_296;
  };
}

const bump = (counts: Record<string, number>, key: string): void => void (counts[key] = (counts[key] ?? 0) + 1);

/** Seeded random trades under random faults, with reloads; each epoch's broker must equal what happened. */
class Campaign {
  readonly report: CampaignReport;
  private readonly random: () => number;
  private expected = new Map<string, Expected>();
  private n = 0;

  constructor(
    private readonly t: Terminal,
    seed: number,
  ) {
    this.random = prng(seed);
    this.report = {
      seed,
      calls: 0,
      byControl: {},
      faults: {},
      outcomes: {},
      uncertain: 0,
      reconciledHappened: 0,
      reconciledNotHappened: 0,
      reloads: 0,
      ordersChecked: 0,
      mismatches: [],
    };
  }

  /** One random trade call (with its preview), under a random fault or none. */
  async step(): Promise<void> {
    const open = [...this.expected].filter(([, e]) => !e.cancelled);
    const roll = this.random();
    const target = open[Math.floor(this.random() * open.length)];
    if (open.length === 0 || roll < 0.5 || !target) await this.place();
    else if (roll < 0.75) await this.modify(target[0], target[1]);
    else await this.cancel(target[0], target[1]);
  }

  /** Checks this broker against what happened, then reloads the tab (the paper broker starts anew). */
  async reload(): Promise<void> {
    await this.check();
    expect(await reload(this.t.page)).toBe(this.t.sessionId);
    await this.t.page.waitForFunction(() => window.__tradescriptDemo?.element().grant === 'trade');
    this.expected = new Map();
    this.report.reloads += 1;
  }

  /** Every agent order at the broker is one that happened, in the state it should be; none is missing. */
  async check(): Promise<void> {
    // A cancel takes effect after the next market tick (every 500 ms).
    await this.t.page.waitForTimeout(700);
    const orders = await demo(this.t.page, (d, account: string) => d.broker.orders(account), ACCOUNT);
    const seen = new Set<string>();
    for (const order of orders.filter((o) => o.source === 'agent')) {
      const expected = this.expected.get(order.orderId);
      if (seen.has(order.clientOrderId)) this.mismatch(`duplicate client order id ${order.clientOrderId}`);
      seen.add(order.clientOrderId);
      if (!expected) this.mismatch(`unexpected order ${order.orderId} (${order.clientOrderId})`);
      else if (expected.clientOrderId !== order.clientOrderId)
        this.mismatch(`${order.orderId} has ${order.clientOrderId}, expected ${expected.clientOrderId}`);
      else if ((order.status === 'cancelled') !== expected.cancelled)
        this.mismatch(`${order.orderId} is ${order.status}, cancelled expected ${expected.cancelled}`);
    }
    for (const [orderId] of this.expected)
      if (!orders.some((o) => o.orderId === orderId)) this.mismatch(`missing ${orderId}`);
    this.report.ordersChecked += this.expected.size;
  }

  private async place(): Promise<void> {
    const clientOrderId = this.clientId();
    const placement = await preview(this.t, limitBuy(clientOrderId));
    const outcome = await this.dispatch('orders.placeOrder', [placement]);
    if (outcome.kind === 'ok')
      this.expected.set((outcome.result as { orderId: string }).orderId, { clientOrderId, cancelled: false });
    if (outcome.kind !== 'uncertain') return;
    const found = (await this.orders()).find((o) => o.clientOrderId === clientOrderId);
    this.reconciled(found !== undefined);
    if (found) this.expected.set(found.orderId, { clientOrderId, cancelled: false });
    await this.replay([placement], outcome, found !== undefined);
  }

  private async modify(orderId: string, expected: Expected): Promise<void> {
    const clientOrderId = this.clientId();
    const change = {
      accountId: ACCOUNT,
      orderId,
      clientOrderId,
      quantity: '0.002',
      limitPrice: String(39_000 + this.n),
    };
    const previewed = await trade(this.t, 'orders.previewModifyOrder', [change]);
    if (previewed.envelope.error) return void bump(this.report.outcomes, `preview:${previewed.envelope.error.code}`);
    const placement = (previewed.envelope.data!.result as { placementArguments: unknown }).placementArguments;
    const outcome = await this.dispatch('orders.modifyOrder', [placement]);
    if (outcome.kind === 'ok') expected.clientOrderId = clientOrderId;
    if (outcome.kind !== 'uncertain') return;
    const happened = (await this.orders()).find((o) => o.orderId === orderId)?.clientOrderId === clientOrderId;
    this.reconciled(happened);
    if (happened) expected.clientOrderId = clientOrderId;
  }

  private async cancel(orderId: string, expected: Expected): Promise<void> {
    const outcome = await this.dispatch('orders.cancelOrder', [{ accountId: ACCOUNT, orderId }]);
    if (outcome.kind === 'ok') expected.cancelled = true;
    if (outcome.kind !== 'uncertain') return;
    const order = (await this.orders()).find((o) => o.orderId === orderId);
    const happened = order !== undefined && (order.cancelRequested || order.status === 'cancelled');
    this.reconciled(happened);
    if (happened) expected.cancelled = true;
  }

  /** One trade call with a fresh operation id, under a random fault (cleared afterwards). */
  private async dispatch(controlId: string, args: unknown[]) {
    const operationId = `camp-${this.report.seed}-${++this.n}`;
    const fault = this.random() < 0.45 ? FAULT_KINDS[Math.floor(this.random() * FAULT_KINDS.length)]! : null;
    if (fault) {
      const spec = { kind: fault, scope: controlId, count: 1, ms: 20 + Math.floor(this.random() * 130) };
      await demo(this.t.page, (d, s: typeof spec) => void d.broker.faults.add(s), spec);
      bump(this.report.faults, fault);
    }
    const revisions = await revisionsFor(this.t, controlId);
    const call = await trade(this.t, controlId, args, operationId, revisions);
    if (fault) await demo(this.t.page, (d) => d.broker.faults.clear());
    this.report.calls += 1;
    bump(this.report.byControl, controlId);
    const code = call.envelope.error?.code ?? 'ok';
    bump(this.report.outcomes, code);
    if (code === 'uncertain_execution') this.report.uncertain += 1;
    const kind = code === 'ok' ? 'ok' : code === 'uncertain_execution' ? 'uncertain' : 'refused';
    return { kind, operationId, revisions, result: call.envelope.data?.result } as const;
  }

  /** The faithful retry of an uncertain placement answers what the reads proved (SPEC §5). */
  private async replay(
    args: unknown[],
    first: { operationId: string; revisions: { orders: number } | undefined },
    happened: boolean,
  ): Promise<void> {
    const again = await trade(this.t, 'orders.placeOrder', args, first.operationId, first.revisions);
    const error = again.envelope.error;
    const proved = happened
      ? again.envelope.data?.reconciled === true
      : error?.code === 'control_failed' && error.details?.receipt?.reconciled === true;
    if (!proved)
      this.mismatch(`replay of ${first.operationId} answered ${error?.code ?? 'a receipt'} (happened ${happened})`);
  }

  private async orders(): Promise<Order[]> {
    const listed = await trade(this.t, 'orders.list', [{ accountId: ACCOUNT, limit: 200 }]);
    return (listed.envelope.data!.result as { orders: Order[] }).orders;
  }

  private reconciled(happened: boolean): void {
    if (happened) this.report.reconciledHappened += 1;
    else this.report.reconciledNotHappened += 1;
  }

  private clientId(): string {
    return `K${(this.report.seed % 1_000_000).toString(36)}${(this.n + 1).toString(36)}X`.toUpperCase().slice(0, 20);
  }

  private mismatch(what: string): void {
    this.report.mismatches.push(what);
  }
}

/** Runs up to `calls` trade calls within `budgetMs`, reloading the tab `reloads` times on the way. */
async function runCampaign(
  t: Terminal,
  options: { calls: number; budgetMs: number; reloads: number },
): Promise<CampaignReport> {
  const seed = Number(process.env['TRADESCRIPT_CAMPAIGN_SEED'] ?? Date.now() % 2_147_483_647);
  console.info(`fault campaign seed ${seed} (replay with TRADESCRIPT_CAMPAIGN_SEED=${seed})`);
  const campaign = new Campaign(t, seed);
  const every = Math.floor(options.calls / (options.reloads + 1));
  const end = Date.now() + options.budgetMs;
  while (campaign.report.calls < options.calls && Date.now() < end) {
    await campaign.step();
    const due =
      campaign.report.reloads < options.reloads && campaign.report.calls >= every * (campaign.report.reloads + 1);
    if (due) await campaign.reload();
  }
  await campaign.check();
  return campaign.report;
}
