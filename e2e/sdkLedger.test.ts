/**
 * SPEC §5 in real Chromium: the host SDK's default ledger is IndexedDB, so a
 * page reload keeps operation evidence. A byte-equivalent retry after a reload
 * returns the recorded outcome and dispatches nothing; an attempt whose page
 * died mid-dispatch is uncertain, never replayed; an unreadable row is never
 * dispatched over; eviction spares attempted and uncertain rows.
 */
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchBrowser, newPage } from './harness/index.js';
import { servePage, type ServedPage } from './fixtures/sdk/pageServer.js';

interface Outcome {
  ok: boolean;
  data?: { operationId: string; result: { orderId: string; dispatch: number } };
  error?: { code: string; message: string; details: { receipt?: { operationId: string } } | null };
}

let served: ServedPage;
let browser: Browser;
let page: Page;
let errors: string[];

async function open(): Promise<void> {
  await page.waitForSelector('body[data-ready="true"]', { state: 'attached' });
}

async function reload(): Promise<void> {
  await page.reload();
  await open();
}

const place = (operationId: string, clientOrderId: string, hang = false): Promise<Outcome> =>
  page.evaluate(([o, c, h]) => window.sdkLedgerTest.place(o, c, h) as Promise<unknown>, [
    operationId,
    clientOrderId,
    hang,
  ] as const) as Promise<Outcome>;

const dispatches = (): Promise<number> => page.evaluate(() => window.sdkLedgerTest.dispatches());

beforeAll(async () => {
  served = await servePage('ledger');
  browser = await launchBrowser();
  ({ page, errors } = await newPage(browser));
  await page.goto(served.url);
  await open();
});

afterAll(async () => {
  await browser?.close();
  await served?.close();
});

describe('SPEC §5 durable operation ledger (IndexedDB, real Chromium)', () => {
  it('SPEC §5 a byte-equivalent retry after a page reload returns the recorded receipt and dispatches nothing', async () => {
    const first = await place('op-1', 'CO1');
    expect(first.ok).toBe(true);
    expect(first.data?.result).toEqual({ orderId: 'o1', dispatch: 1 });
    expect(await dispatches()).toBe(1);
    await reload();
    const retry = await place('op-1', 'CO1');
    expect(retry).toEqual(first);
    expect(await dispatches()).toBe(1);
    const changed = await place('op-1', 'CO2');
    expect(changed.error?.code).toBe('operation_id_conflict');
    expect(await dispatches()).toBe(1);
  });

  it('SPEC §5 an attempt whose page reloaded mid-dispatch is uncertain_execution, never redispatched', async () => {
    const before = await dispatches();
    void page.evaluate(() => void window.sdkLedgerTest.place('op-hang', 'CO3', true));
    await expect.poll(dispatches, { timeout: 10_000 }).toBe(before + 1);
    await reload();
    const retry = await place('op-hang', 'CO3', true);
    expect(retry.ok).toBe(false);
    expect(retry.error?.code).toBe('uncertain_execution');
    expect(retry.error?.details?.receipt?.operationId).toBe('op-hang');
    await reload();
    expect((await place('op-hang', 'CO3', true)).error?.code).toBe('uncertain_execution');
    expect(await dispatches()).toBe(before + 1);
  });

  it('SPEC §5 a stored row that fails validation is internal_error telling to reconcile, and nothing is dispatched', async () => {
    const before = await dispatches();
    await page.evaluate(() => window.sdkLedgerTest.corrupt('op-bad'));
    const outcome = await place('op-bad', 'CO4');
    expect(outcome.error?.code).toBe('internal_error');
    expect(outcome.error?.message).toMatch(/Reconcile/);
    expect(await dispatches()).toBe(before);
  });

  it('SPEC §5 the IndexedDB ledger is bounded: the oldest definite rows go, attempted and uncertain rows stay', async () => {
    const survivors = await page.evaluate(() => window.sdkLedgerTest.evictionSurvivors());
    expect(survivors).toEqual(['in-flight:attempted', 'unknown:uncertain', 'done-4:completed']);
    expect(errors).toEqual([]);
  });
});
