/**
 * `<tradescript-bridge>` in real Chromium (SPEC §2, §5, §9, §10): a fixture
 * terminal with a real host SDK pairs through the real CLI's relay, a real MCP
 * client attaches, and the element's grant, activity feed, "detach all",
 * confirmation mode, keyboard use and fixed box are checked through the page.
 */
import { execFile } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import type { Client } from '@modelcontextprotocol/client';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SESSIONS_URI, type SessionsDocument } from '../src/protocol/index.js';
import type { SessionOutcome } from '../src/sdk/index.js';
import { serveElementPage, type ServedElementPage } from './fixtures/element/servePage.js';
import { childEnv } from './harness/home.js';
import {
  connectHttpClient,
  launchBrowser,
  newPage,
  repoRoot,
  serverBin,
  startServer,
  type ServerHandle,
} from './harness/index.js';

const run = promisify(execFile);
const ELEMENT = 'tradescript-bridge';

let served: ServedElementPage;
let server: ServerHandle;
let browser: Browser;
let page: Page;
let errors: string[];
let client: Client;

const pairCodeOf = (pairUrl: string): string => new URL(pairUrl).hash.replace(/^#pair=/, '');

function fixtureUrl(code?: string): string {
  const relay = `?relay=${encodeURIComponent(server.ready.relayUrl)}`;
  return `${served.url}${relay}${code === undefined ? '' : `#pair=${code}`}`;
}

async function ready(target: Page, state = 'paired'): Promise<void> {
  await target.waitForSelector('body[data-ready="true"]', { state: 'attached' });
  await target.waitForFunction((s) => window.elementTest.status()?.state === s, state, { timeout: 20_000 });
}

const call = (controlId: string, target: Page = page): Promise<SessionOutcome> =>
  target.evaluate((id) => window.elementTest.call(id), controlId);

/** `ok` or the error code of an outcome. */
const outcomeOf = (outcome: SessionOutcome): string => (outcome.ok ? 'ok' : outcome.error.code);

/** The policy layer of a denial. */
const reasonOf = (outcome: SessionOutcome): string | null | undefined =>
  outcome.ok ? null : outcome.error.details?.reason;

const grantOf = (target: Page = page): Promise<string> => target.evaluate(() => window.elementTest.grant());

const chooseGrant = (grant: string, target: Page = page): Promise<void> =>
  target.locator(`${ELEMENT} label[for=grant-${grant}]`).click();

const feedRows = (): Promise<string[]> => page.locator(`${ELEMENT} [part=feed] li`).allInnerTexts();

/**
 * Screenshots the element; written to docs/images only with
 * `UPDATE_SCREENSHOTS=1`, so an ordinary run leaves the tracked images alone.
 */
async function screenshot(target: Page, name: string): Promise<void> {
  const png = await target.locator(ELEMENT).screenshot();
  expect(png.subarray(1, 4).toString()).toBe('PNG');
  if (process.env.UPDATE_SCREENSHOTS !== '1') return;
  const dir = join(repoRoot, 'docs/images');
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, name), png);
}

/** A fresh single-use code from the running server, as `tradescript-mcp pair` prints it. */
async function freshCode(grant: string): Promise<string> {
  const { stdout } = await run(process.execPath, [serverBin, 'pair', '--grant', grant, '--json'], {
    cwd: repoRoot,
    env: childEnv(server.home),
  });
  return (JSON.parse(stdout) as { code: string }).code;
}

async function sessionGrant(sessionId: string): Promise<string | null> {
  const read = await client.readResource({ uri: SESSIONS_URI });
  const doc = JSON.parse((read.contents[0] as { text: string }).text) as SessionsDocument;
  return doc.sessions.find((s) => s.sessionId === sessionId)?.grant ?? null;
}

beforeAll(async () => {
  served = await serveElementPage();
  server = await startServer(['demo', '--allowed-origin', served.origin]);
  browser = await launchBrowser();
  ({ page, errors } = await newPage(browser));
  await page.goto(fixtureUrl(pairCodeOf(server.ready.pairUrl!)));
  await ready(page);
  client = await connectHttpClient(server.ready.mcpUrl!);
});

afterAll(async () => {
  await client?.close();
  await browser?.close();
  await server?.close();
  await served?.close();
});

describe('<tradescript-bridge> in real Chromium', () => {
  it('SPEC §9 pairs from #pair=CODE, removes it from the address, and shows the session and its MCP clients', async () => {
    expect(page.url()).not.toContain('#pair');
    expect(page.url()).toContain('?relay=');
    await expect.poll(() => page.locator(`${ELEMENT} [data-testid=state]`).innerText()).toBe('Paired');
    expect(await page.locator(`${ELEMENT} [role=status][aria-live=polite]`).textContent()).toMatch(/^Paired\./);
    const sessionId = (await page.evaluate(() => window.elementTest.status()?.sessionId)) ?? '';
    expect(await page.locator(`${ELEMENT} [part=status]`).innerText()).toContain(sessionId.slice(0, 8));
    await expect
      .poll(() => page.locator(`${ELEMENT} [data-testid=clients]`).innerText())
      .toContain('tradescript-e2e (http)');
  });

  it('SPEC §2 a grant change applies to the next call and reaches the server', async () => {
    const sessionId = (await page.evaluate(() => window.elementTest.status()?.sessionId)) ?? '';
    expect(await grantOf()).toBe('write');
    expect((await call('notes.add')).ok).toBe(true);
    await chooseGrant('read');
    expect(await grantOf()).toBe('read');
    const denied = await call('notes.add');
    expect(denied).toMatchObject({
      ok: false,
      error: { code: 'control_unavailable', details: { reason: 'attachment-grant' } },
    });
    await expect.poll(() => sessionGrant(sessionId)).toBe('read');
    await chooseGrant('write');
    expect((await call('notes.add')).ok).toBe(true);
    await expect.poll(() => sessionGrant(sessionId)).toBe('write');
    const events = await page.evaluate(() => window.elementTest.grantEvents());
    expect(events.slice(-2)).toEqual([
      { grant: 'read', source: 'person' },
      { grant: 'write', source: 'person' },
    ]);
  });

  it('SPEC §10 keyboard: Tab reaches the grant radios and arrow keys change the grant', async () => {
    await page.locator('#before').focus();
    await page.keyboard.press('Tab');
    const focused = (): Promise<string | null> =>
      page.evaluate(() => {
        const inner = document.activeElement?.shadowRoot?.activeElement;
        return inner instanceof HTMLInputElement ? `${inner.name}:${inner.value}` : null;
      });
    expect(await focused()).toBe('grant:write');
    await page.keyboard.press('ArrowRight');
    expect(await focused()).toBe('grant:trade');
    expect(await grantOf()).toBe('trade');
    await page.keyboard.press('ArrowLeft');
    await page.keyboard.press('ArrowLeft');
    expect(await grantOf()).toBe('read');
    await page.keyboard.press('ArrowRight');
    expect(await grantOf()).toBe('write');
  });

  it('SPEC §10 the activity feed is kept in IndexedDB and shows again after a reload, newest first; the grant survives the reload', async () => {
    const before = await feedRows();
    expect(before.length).toBeGreaterThanOrEqual(3);
    expect(before[0]).toMatch(/notes\.add\s+ok/);
    expect(before.some((row) => /control_unavailable/.test(row))).toBe(true);
    expect(before[0]).toContain('Claude Desktop');
    await chooseGrant('read');
    await page.reload();
    await ready(page);
    expect(await grantOf()).toBe('read');
    await expect.poll(feedRows).toEqual(before);
    await chooseGrant('write');
  });

  it('SPEC §10 the kept feed is bounded to the newest 200 and skips rows that fail validation', async () => {
    await page.evaluate(() => window.elementTest.callMany(260));
    // Rows show on a later task (at most every FEED_BURST_RENDER_MS during a burst).
    await expect.poll(async () => (await feedRows()).length).toBe(200);
    // The store itself is trimmed back to 200 every 50 added rows: 260 added, it holds 200 to 249.
    await expect.poll(() => page.evaluate(() => window.elementTest.activityRows())).toBeGreaterThanOrEqual(200);
    expect(await page.evaluate(() => window.elementTest.activityRows())).toBeLessThan(250);
    await page.evaluate(() => window.elementTest.corruptActivity());
    await page.reload();
    await ready(page);
    const rows = await feedRows();
    expect(rows).toHaveLength(200);
    expect(rows.join('\n')).not.toContain('evil.row');
  });

  it('SPEC §10 a row kept by an earlier version (one record per row) still shows after a reload', async () => {
    await page.evaluate(() => window.elementTest.keepOldStyleRow('kept.before'));
    await page.reload();
    await ready(page);
    expect((await feedRows()).join('\n')).toContain('kept.before');
  });

  it('SPEC §10 a reload right after a burst keeps every row of it (the page writes them as it hides)', async () => {
    const reloaded = page.waitForEvent('load');
    const before = await page.evaluate(() => window.elementTest.burstThenReload(40));
    expect(before[0]).toMatch(/notes\.add\s*ok/);
    await reloaded;
    await ready(page);
    // Every row's text, rendered or not (rows off screen have `content-visibility: auto`, so no innerText).
    const texts = () => page.locator(`${ELEMENT} [part=feed] li`).allTextContents();
    await expect.poll(texts).toEqual(before);
  });

  it('SPEC §10 a feed out of sight renders nothing per call; shown again, it holds the newest rows in order, bounded', async () => {
    const texts = () => page.locator(`${ELEMENT} [part=feed] li`).allTextContents();
    const before = await texts();
    // Hidden (display: none): the element's observer hears it on the next frame.
    try {
      await page.evaluate(async () => {
        document.querySelector('tradescript-bridge')!.hidden = true;
        await new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(resolve)));
      });
      await page.evaluate(() => {
        const feed = document.querySelector('tradescript-bridge')!.shadowRoot!.querySelector('[part=feed]')!;
        const seen = { changes: 0 };
        new MutationObserver((records) => (seen.changes += records.length)).observe(feed, {
          subtree: true,
          childList: true,
          characterData: true,
        });
        (window as unknown as { feedChanges: typeof seen }).feedChanges = seen;
      });
      await page.evaluate(async () => {
        for (let i = 0; i < 30; i++) await window.elementTest.call('notes.add', `hidden-${i}`);
      });
      // Longer than the longest render interval (1 s, during a burst): a feed that rendered per call would have by now.
      await page.waitForTimeout(1_100);
      expect(
        await page.evaluate(() => (window as unknown as { feedChanges: { changes: number } }).feedChanges.changes),
      ).toBe(0);
    } finally {
      await page.evaluate(() => (document.querySelector('tradescript-bridge')!.hidden = false));
    }
    const newest = Array.from({ length: 30 }, (_, i) => `hidden-${29 - i}`);
    await expect
      .poll(async () => (await texts()).slice(0, 30).map((row) => /hidden-\d+/.exec(row)?.[0]))
      .toEqual(newest);
    const after = await texts();
    expect(after).toHaveLength(Math.min(200, before.length + 30));
    expect(after.slice(30)).toEqual(before.slice(0, after.length - 30));
  });

  it('SPEC §10 a burst of calls in sight shows every row of it, newest first, once rendered', async () => {
    const texts = () => page.locator(`${ELEMENT} [part=feed] li`).allTextContents();
    await page.evaluate(async () => {
      for (let i = 0; i < 150; i++) await window.elementTest.call('notes.add', `burst-${i}`);
    });
    const newest = Array.from({ length: 150 }, (_, i) => `burst-${149 - i}`);
    await expect
      .poll(async () => (await texts()).slice(0, 150).map((row) => /burst-\d+/.exec(row)?.[0]))
      .toEqual(newest);
    expect(await texts()).toHaveLength(200);
  });

  it('SPEC §5 confirm mode: decline and no answer are execution_declined and nothing runs; approve runs', async () => {
    const confirm = page.locator(`${ELEMENT} [part=confirm]`);
    expect(await page.evaluate(() => window.elementTest.confirmMode())).toBe(false);
    expect(reasonOf(await call('orders.cancelAll'))).toBe('attachment-grant');
    await chooseGrant('trade');
    expect((await call('orders.cancelAll')).ok).toBe(true);
    await page.locator(`${ELEMENT} [part=confirm-toggle]`).click();
    expect(await page.evaluate(() => window.elementTest.confirmMode())).toBe(true);
    const ran = (): Promise<number> => page.evaluate(() => window.elementTest.dispatched().orders);
    const start = await ran();

    const declined = call('orders.cancelAll');
    await confirm.waitFor();
    expect(await confirm.innerText()).toMatch(/Claude Desktop[\s\S]*orders\.cancelAll[\s\S]*session/);
    await confirm.getByRole('button', { name: 'Decline' }).click();
    expect(outcomeOf(await declined)).toBe('execution_declined');
    await confirm.waitFor({ state: 'detached' });

    const escaped = call('orders.cancelAll');
    await confirm.waitFor();
    await page.keyboard.press('Escape');
    expect(outcomeOf(await escaped)).toBe('execution_declined');

    await page.evaluate(() => window.elementTest.setConfirmTimeout(1_000));
    const unanswered = call('orders.cancelAll');
    const lateApprove = await confirm.getByRole('button', { name: 'Approve' }).elementHandle();
    expect(outcomeOf(await unanswered)).toBe('execution_declined');
    expect(await confirm.count()).toBe(0);
    // The person clicks Approve just after the window closed: nothing runs, nothing reopens.
    await lateApprove!.evaluate((button) => (button as HTMLButtonElement).click());
    expect(await confirm.count()).toBe(0);
    await page.evaluate(() => window.elementTest.setConfirmTimeout(20_000));

    const cancelled = page.evaluate(() => window.elementTest.callCancelledAfter('orders.cancelAll', 300));
    await confirm.waitFor();
    expect(outcomeOf(await cancelled)).toBe('execution_declined');
    await confirm.waitFor({ state: 'detached' });
    expect(await ran()).toBe(start);

    const approved = call('orders.cancelAll');
    await confirm.getByRole('button', { name: 'Approve' }).click();
    expect((await approved).ok).toBe(true);
    expect(await ran()).toBe(start + 1);
    expect((await call('notes.add')).ok).toBe(true);
    await page.locator(`${ELEMENT} [part=confirm-toggle]`).click();
    await chooseGrant('write');
  });

  it('SPEC §10 no layout shift: the element keeps its box while the feed fills and the dialog opens', async () => {
    const boxes = async () => ({
      element: await page.locator(ELEMENT).boundingBox(),
      beside: await page.locator('#beside').boundingBox(),
      below: await page.locator('#below').boundingBox(),
    });
    const first = await boxes();
    for (let i = 0; i < 40; i++) await call('notes.add');
    await expect.poll(async () => (await feedRows()).length).toBeGreaterThan(40);
    expect(await boxes()).toEqual(first);
    await chooseGrant('trade');
    await page.locator(`${ELEMENT} [part=confirm-toggle]`).click();
    const pending = call('orders.cancelAll');
    await page.locator(`${ELEMENT} [part=confirm]`).waitFor();
    expect(await boxes()).toEqual(first);
    await screenshot(page, 'element-confirm.png');
    await page.locator(`${ELEMENT} [part=confirm]`).getByRole('button', { name: 'Decline' }).click();
    expect(outcomeOf(await pending)).toBe('execution_declined');
    await page.locator(`${ELEMENT} [part=confirm-toggle]`).click();
    await chooseGrant('write');
  });

  it('SPEC §9 the pairing form checks input, names the command after a used code, and pairs with a pasted code proposing a grant', async () => {
    const second = await newPage(browser);
    await second.page.goto(fixtureUrl());
    await ready(second.page, 'unpaired');
    const form = second.page.locator(`${ELEMENT} [part=pair-form]`);
    await form.getByLabel('Pairing code').fill('nope');
    await form.getByRole('button', { name: 'Pair' }).click();
    expect(await form.getByRole('alert').innerText()).toMatch(/8 letters or digits/);
    await form.getByLabel('Pairing code').fill(pairCodeOf(server.ready.pairUrl!));
    await form.getByRole('button', { name: 'Pair' }).click();
    await expect.poll(() => form.getByRole('alert').innerText()).toMatch(/expired or already used/);
    expect(await form.innerText()).toContain('npx tradescript-mcp pair');
    await screenshot(second.page, 'element-unpaired.png');
    await form.getByLabel('Pairing code').fill(await freshCode('trade'));
    await form.getByRole('button', { name: 'Pair' }).click();
    await ready(second.page);
    expect(await grantOf(second.page)).toBe('trade');
    expect(await second.page.evaluate(() => window.elementTest.grantEvents())).toEqual([
      { grant: 'trade', source: 'pairing-link' },
    ]);
    expect(second.errors).toEqual([]);
    await second.close();
  });

  it('SPEC §9 a pairing link opened in the paired tab shows the grant it proposes: declined, nothing changes; accepted, it applies', async () => {
    const sessionId = (await page.evaluate(() => window.elementTest.status()?.sessionId)) ?? '';
    const prompt = page.locator(`${ELEMENT} [part=pair-link]`);
    expect(await grantOf()).toBe('write');
    expect(await page.locator(`${ELEMENT} [data-testid=trading]`).innerText()).toMatch(
      /Trading off on the server \(start it with --enable-trading\)/,
    );

    // Opened over this page's own address: only the fragment changes, so no reload.
    const declined = await freshCode('trade');
    await page.evaluate((code) => (location.hash = `pair=${code}`), declined);
    await expect
      .poll(() => prompt.innerText())
      .toMatch(/proposes Trade access for MCP clients in this tab \(now\s+Write\)/);
    expect(await prompt.innerText()).toContain('--enable-trading');
    expect(page.url()).not.toContain('#pair');
    await prompt.getByRole('button', { name: 'Keep Write' }).click();
    expect(await prompt.count()).toBe(0);
    expect(await grantOf()).toBe('write');
    expect(await sessionGrant(sessionId)).toBe('write');

    // Opened as a new page load of the paired tab: the kept credential connects, the link still asks.
    const accepted = await freshCode('trade');
    await page.goto(fixtureUrl(accepted));
    await ready(page);
    await expect.poll(() => prompt.innerText()).toMatch(/proposes Trade access/);
    expect(await grantOf()).toBe('write');
    await prompt.getByRole('button', { name: 'Switch to Trade' }).click();
    expect(await grantOf()).toBe('trade');
    await expect.poll(() => sessionGrant(sessionId)).toBe('trade');
    expect((await page.evaluate(() => window.elementTest.grantEvents())).at(-1)).toEqual({
      grant: 'trade',
      source: 'pairing-link',
    });
    expect(await page.evaluate(() => window.elementTest.status()?.sessionId)).toBe(sessionId);

    // The same link again: its code is spent, and the page says so with the command for a fresh one.
    await page.evaluate((code) => (location.hash = `pair=${code}`), accepted);
    await expect.poll(() => prompt.innerText()).toMatch(/did not work: it was expired or already used/);
    expect(await prompt.innerText()).toContain('npx tradescript-mcp pair');
    await prompt.getByRole('button', { name: 'OK' }).click();
    expect(await page.evaluate(() => window.elementTest.status()?.state)).toBe('paired');
    await chooseGrant('write');
  });

  it('SPEC §9 a relay that does not allow the page’s origin: the element says which --allowed-origin admits it, the log names the origin', async () => {
    const strict = await startServer(['serve', '--http', '127.0.0.1:0']);
    const { stdout } = await run(process.execPath, [serverBin, 'pair', '--json'], { env: childEnv(strict.home) });
    const code = (JSON.parse(stdout) as { code: string }).code;
    const other = await newPage(browser);
    await other.page.goto(`${served.url}?relay=${encodeURIComponent(strict.ready.relayUrl)}#pair=${code}`);
    await expect
      .poll(() => other.page.locator(`${ELEMENT} [data-testid=message]`).innerText())
      .toBe(`This origin is not allowed: start the server with --allowed-origin ${served.origin}.`);
    expect(await other.page.locator(`${ELEMENT} [data-testid=message] code`).innerText()).toBe(
      `--allowed-origin ${served.origin}`,
    );
    await expect
      .poll(() => strict.logs())
      .toContain(
        `relay upgrade refused reason="origin" origin="${served.origin}" admit="--allowed-origin ${served.origin}"`,
      );
    await other.close();
    await strict.close();
  });

  it('SPEC §9 §10 a page whose Content-Security-Policy leaves the relay out of connect-src: the element names the origin to add; with it added, the page pairs', async () => {
    const own = await startServer(['serve', '--http', '127.0.0.1:0', '--allowed-origin', served.origin]);
    const relayOrigin = new URL(own.ready.relayUrl).origin;
    const codeOf = async (): Promise<string> => {
      const { stdout } = await run(process.execPath, [serverBin, 'pair', '--json'], { env: childEnv(own.home) });
      return (JSON.parse(stdout) as { code: string }).code;
    };
    /** The fixture page served with `policy` (`?csp=`, see fixturePage.ts), as a vendor's server would send it. */
    const withPolicy = async (policy: string) => {
      const tab = await newPage(browser);
      const query = `?relay=${encodeURIComponent(own.ready.relayUrl)}&csp=${encodeURIComponent(policy)}`;
      await tab.page.goto(`${served.url}${query}#pair=${await codeOf()}`);
      return tab;
    };
    const strict = await withPolicy("connect-src 'self'");
    await expect
      .poll(() => strict.page.locator(`${ELEMENT} [data-testid=message]`).innerText())
      .toBe(`This page’s Content-Security-Policy blocks the relay: add ${relayOrigin} to its connect-src.`);
    expect(await strict.page.locator(`${ELEMENT} [data-testid=message] code`).innerText()).toBe(relayOrigin);
    await strict.close();
    const open = await withPolicy(`connect-src 'self' ${relayOrigin}`);
    await ready(open.page);
    await open.close();
    await own.close();
  });

  it('SPEC §11 `status` says trading is off; `pair --grant trade` says what its link will do', async () => {
    const env = childEnv(server.home);
    const status = await run(process.execPath, [serverBin, 'status'], { env });
    expect(status.stdout).toContain('trading: off: trade-class controls are refused whatever a tab grants');
    const pair = await run(process.execPath, [serverBin, 'pair', '--grant', 'trade'], { env });
    expect(pair.stdout.trim()).toMatch(/#pair=[A-Z0-9]{4}-[A-Z0-9]{4}$/);
    expect(pair.stderr).toContain('A tab not paired yet pairs with MCP access "trade"');
    expect(pair.stderr).toContain('applied only if they accept');
    expect(pair.stderr).toContain('--enable-trading');
  });

  it('SPEC §10 screenshot of the paired element for the README (UPDATE_SCREENSHOTS=1 writes docs/images)', async () => {
    await screenshot(page, 'element.png');
  });

  it('SPEC §2 §10 "detach all" ends every attachment’s use of this terminal; the MCP client stays connected for other terminals', async () => {
    const detach = page.locator(`${ELEMENT} [part=detach]`);
    const sessionId = (await page.evaluate(() => window.elementTest.status()?.sessionId)) ?? '';
    await detach.click();
    await expect.poll(() => page.evaluate(() => window.elementTest.status()?.attachments.length)).toBe(0);
    expect(await detach.isDisabled()).toBe(true);
    // The connection stays open (it may use other hosts' terminals); this terminal refuses it.
    expect((await client.listTools()).tools.length).toBeGreaterThan(0);
    const refused = await client.callTool({
      name: 'tradescript_get_context',
      arguments: { sessionId, target: { scope: 'session' } },
    });
    expect(JSON.stringify(refused.structuredContent)).toContain('control_unavailable');
    expect(errors).toEqual([]);
  });
});
