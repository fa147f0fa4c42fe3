/**
 * The Chrome MV3 extension in real Chromium (SPEC §2, §8, §9, §10): the built
 * `dist/extension` loads unpacked, pairs through its popup with the code of
 * the real CLI's pairing link, is allowed one fixture terminal site with the
 * default grant, and serves a real MCP client's calls and snapshots through
 * its service worker; a stopped service worker comes back with the same
 * session id; another origin (a page, a foreign iframe) gets nothing; the
 * relay credential never reaches the page.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { BrowserContext, Page, Worker } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SESSIONS_URI, type SessionsDocument, type SnapshotData } from '../src/protocol/index.js';
import { BROWSER_CDP_ARGS, BrowserCdp } from './fixtures/extension/browserCdp.js';
import { extensionIdOf } from './fixtures/extension/extensionId.js';
import { servePages, type ServedPages } from './fixtures/extension/servePages.js';
import {
  callTool,
  connectHttpClient,
  launchPersistentBrowser,
  repoRoot,
  startServer,
  type PersistentBrowser,
  type ServerHandle,
} from './harness/index.js';

const EXTENSION_DIR = join(repoRoot, 'dist/extension');
const POPUP = 'tradescript-popup';
const SESSION = { scope: 'session' } as const;

let pages: ServedPages;
let server: ServerHandle;
let browser: PersistentBrowser;
let context: BrowserContext;
let cdp: BrowserCdp;
let extensionId: string;
let worker: Worker;
let popup: Page;
let terminal: Page;
let client: Client;
let sessionId: string;
let credentialSecret: string;

interface TestWindow {
  extensionTest: {
    status(): { state: string; sessionId: string | null; linked: boolean; message: string | null } | null;
    added(): string[];
    captures(): number;
    grant(): string;
    started(): number;
  };
  __seen: string[];
}

const status = (page: Page) => page.evaluate(() => (window as unknown as TestWindow).extensionTest.status());

async function paired(page: Page, timeout = 20_000): Promise<string> {
  await page.waitForFunction(
    () => (window as unknown as TestWindow).extensionTest.status()?.state === 'paired',
    undefined,
    { timeout },
  );
  const id = (await status(page))?.sessionId;
  if (!id) throw new Error('paired without a session id');
  return id;
}

async function sessions(): Promise<SessionsDocument> {
  const read = await client.readResource({ uri: SESSIONS_URI });
  const first = read.contents[0];
  return JSON.parse(first && 'text' in first ? first.text : '{}') as SessionsDocument;
}

const addNote = (text: string) =>
  callTool(client, 'tradescript_call', { sessionId, target: SESSION, controlId: 'notes.add', args: [text] });

beforeAll(async () => {
  extensionId = extensionIdOf(EXTENSION_DIR);
  pages = await servePages();
  server = await startServer(['demo', '--allowed-origin', `chrome-extension://${extensionId}`]);
  browser = await launchPersistentBrowser({ extensionPaths: [EXTENSION_DIR], args: BROWSER_CDP_ARGS });
  context = browser.context;
  worker = context.serviceWorkers()[0] ?? (await context.waitForEvent('serviceworker', { timeout: 15_000 }));
  cdp = await BrowserCdp.connect(browser.userDataDir);
  client = await connectHttpClient(server.ready.mcpUrl!);
});

afterAll(async () => {
  await browser?.close();
  await server?.close();
  await pages?.close();
});

describe('Chrome extension', () => {
  it('SPEC §10 the unpacked MV3 extension loads with its fixed key: a stable id and a module service worker', () => {
    expect(extensionId).toBe('iopolekcdmpoldckaknpdaaiphniefbl');
    expect(worker.url()).toBe(`chrome-extension://${extensionId}/sw.js`);
  });

  it('SPEC §9 §10 the popup pairs with the code of the ready line’s pairing link', async () => {
    popup = await context.newPage();
    await popup.setViewportSize({ width: 380, height: 600 });
    await popup.goto(`chrome-extension://${extensionId}/popup.html`);
    await popup.locator(`${POPUP} details.more summary:has-text("Relay")`).click();
    await popup.locator(`${POPUP} input[name=relay-url]`).fill(server.ready.relayUrl);
    await popup.locator(`${POPUP} button[name=save-relay]`).click();
    await expect.poll(() => popup.locator(`${POPUP} .pill`).getAttribute('data-state')).toBe('unpaired');
    const code = new URL(server.ready.pairUrl!).hash.replace(/^#pair=/, '');
    await popup.locator(`${POPUP} input[name=pair-code]`).fill(code);
    await popup.locator(`${POPUP} form:has(input[name=pair-code]) button`).click();
    await expect
      .poll(() => popup.locator(`${POPUP} .pill`).getAttribute('data-state'), { timeout: 15_000 })
      .toBe('paired');
    const stored = await worker.evaluate(() => chrome.storage.local.get('credential'));
    credentialSecret = (stored['credential'] as { secret: string }).secret;
    expect(credentialSecret.length).toBeGreaterThanOrEqual(16);
  });

  it('SPEC §2 §10 a site allowed in the popup (grant write by default) attaches its tab as a session of that origin', async () => {
    await popup.locator(`${POPUP} details.more summary:has-text("Add a site")`).click();
    await popup.locator(`${POPUP} input[name=site]`).fill(pages.granted);
    await popup.locator(`${POPUP} button[name=add-site]`).click();
    const card = popup.locator(`${POPUP} article.site[data-origin="${pages.granted}"]`);
    await expect.poll(() => card.locator('button[aria-pressed=true]').textContent()).toMatch(/write/);
    terminal = await context.newPage();
    await terminal.goto(`${pages.granted}/`);
    sessionId = await paired(terminal);
    const summary = (await sessions()).sessions.find((s) => s.sessionId === sessionId);
    expect(summary).toMatchObject({ origin: pages.granted, hostKind: 'extension', grant: 'write', connected: true });
    expect((await status(terminal))?.linked).toBe(true);
  });

  it('SPEC §3 §10 an MCP client’s call runs in the granted tab and shows in the site’s activity', async () => {
    const { envelope, isError } = await addNote('from mcp');
    expect(isError).toBe(false);
    expect(envelope.data).toMatchObject({ controlId: 'notes.add', result: { count: 1 } });
    expect(await terminal.evaluate(() => (window as unknown as TestWindow).extensionTest.added())).toEqual([
      'from mcp',
    ]);
    const rows = popup.locator(`${POPUP} article.site[data-origin="${pages.granted}"] .activity li`);
    await expect.poll(() => rows.first().textContent()).toMatch(/notes\.add\s*ok/);
    const sessionRow = popup.locator(`${POPUP} li.session[data-session-id="${sessionId}"]`);
    await expect.poll(() => sessionRow.locator('.clients').textContent()).toContain('tradescript-e2e');
  });

  it('SPEC §8 a snapshot uses the page’s capture without activeTab, and the visible tab once the action granted it', async () => {
    const snap = () =>
      callTool<SnapshotData>(client, 'tradescript_snapshot', {
        sessionId,
        target: { scope: 'chart', chartId: 'main' },
      });
    const captures = () => terminal.evaluate(() => (window as unknown as TestWindow).extensionTest.captures());
    await terminal.bringToFront();
    const slow = await snap();
    expect(slow.envelope.data).toMatchObject({ mimeType: 'image/png', width: 480, height: 240 });
    expect(await captures()).toBe(1);
    await cdp.triggerAction(extensionId, pages.granted);
    await terminal.bringToFront();
    const fast = await snap();
    expect(fast.envelope.data).toMatchObject({ mimeType: 'image/png', width: 480, height: 240 });
    expect(await captures()).toBe(1);
    expect(fast.result.content.some((item) => item.type === 'image')).toBe(true);
  });

  it('SPEC §9 a service worker Chromium stops comes back, reconnects and serves the next call under the same session id', async () => {
    const before = server.logs();
    await cdp.stopServiceWorker(extensionId);
    // The server saw the old socket go and the tab's session come back on a new one under its kept id.
    const since = () => server.logs().slice(before.length);
    await expect
      .poll(since, { timeout: 15_000 })
      .toMatch(/relay socket closed[\s\S]*session opened sessionId="[^"]+" .*kept=true/);
    expect(since()).toContain(`sessionId="${sessionId}"`);
    expect(await paired(terminal)).toBe(sessionId);
    const { isError, envelope } = await addNote('after restart');
    expect(isError).toBe(false);
    expect(envelope.meta.sessionId).toBe(sessionId);
    expect(await terminal.evaluate(() => (window as unknown as TestWindow).extensionTest.added())).toEqual([
      'from mcp',
      'after restart',
    ]);
    // The popup reconnected to the new service worker, which kept the site's activity from before the stop.
    const rows = popup.locator(`${POPUP} article.site[data-origin="${pages.granted}"] .activity li`);
    await expect
      .poll(() => rows.allTextContents())
      .toEqual([
        expect.stringMatching(/notes\.add\s*ok/),
        expect.stringMatching(/snapshot\s*ok/),
        expect.stringMatching(/snapshot\s*ok/),
        expect.stringMatching(/notes\.add\s*ok/),
      ]);
  });

  it('SPEC §10 screenshot of the popup for the README (UPDATE_SCREENSHOTS=1 writes docs/images)', async () => {
    // A fresh popup, as the person sees it when opening it: the forms folded.
    await popup.reload();
    await popup.bringToFront();
    await popup.locator(`${POPUP} article.site`).waitFor();
    const png = await popup.locator(POPUP).screenshot();
    expect(png.subarray(1, 4).toString()).toBe('PNG');
    if (process.env.UPDATE_SCREENSHOTS !== '1') return;
    mkdirSync(join(repoRoot, 'docs/images'), { recursive: true });
    writeFileSync(join(repoRoot, 'docs/images/popup.png'), png);
  });

  it('SPEC §5 §9 a mutation in flight when the service worker stops is reported uncertain and never replayed', async () => {
    const pending = callTool(client, 'tradescript_call', {
      sessionId,
      target: SESSION,
      controlId: 'notes.addSlowly',
      args: ['in flight'],
    });
    await expect.poll(() => terminal.evaluate(() => (window as unknown as TestWindow).extensionTest.started())).toBe(1);
    await cdp.stopServiceWorker(extensionId);
    const { isError, envelope } = await pending;
    expect(isError).toBe(true);
    expect(envelope.error).toMatchObject({ code: 'uncertain_execution', retry: 'after_reconcile' });
    expect(await paired(terminal)).toBe(sessionId);
    // The page ran it once, to its end; nothing dispatched it again.
    await expect
      .poll(() => terminal.evaluate(() => (window as unknown as TestWindow).extensionTest.added()), { timeout: 5_000 })
      .toEqual(['from mcp', 'after restart', 'in flight']);
    expect(await terminal.evaluate(() => (window as unknown as TestWindow).extensionTest.started())).toBe(1);
  });

  it('SPEC §10 a page of another origin gets no hello, no port, no way to the extension and no session', async () => {
    const foreign = await context.newPage();
    await foreign.goto(`${pages.foreign}/`);
    const heard = await foreign.evaluate(async () => {
      const got: string[] = [];
      window.addEventListener('message', (event) =>
        got.push(`${JSON.stringify(event.data)} ports=${event.ports.length}`),
      );
      window.postMessage({ tag: 'tradescript.extensionLink', v: 1, t: 'hello' }, '*');
      window.postMessage({ tag: 'tradescript.extensionLink', v: 1, t: 'ready' }, '*');
      await new Promise((resolve) => setTimeout(resolve, 1500));
      const runtime = (globalThis as { chrome?: { runtime?: { connect?: unknown } } }).chrome?.runtime?.connect;
      return { got, runtime: typeof runtime };
    });
    // Only what the page posted itself (its fixture answers a `ready` with a hello): no `offer`, no port.
    expect(heard.got.length).toBeLessThanOrEqual(3);
    expect(heard.got.every((m) => m.endsWith('ports=0') && !m.includes('offer'))).toBe(true);
    expect(heard.runtime).toBe('undefined');
    expect((await status(foreign))?.linked).toBe(false);
    expect((await sessions()).sessions.map((s) => s.origin)).not.toContain(pages.foreign);
    await foreign.close();
  });

  it('SPEC §10 a foreign iframe in a granted page cannot take the link: its hellos are not its parent’s', async () => {
    const quiet = await context.newPage();
    await quiet.goto(`${pages.granted}/?expose=0`);
    const seen = () => quiet.evaluate(() => (window as unknown as TestWindow).__seen);
    // The content script runs here (the site is allowed) and says it is ready.
    await expect.poll(async () => (await seen()).some((m) => m.includes('"t":"ready"'))).toBe(true);
    await quiet.evaluate(async (src) => {
      const frame = document.createElement('iframe');
      frame.src = src;
      document.body.append(frame);
      await new Promise((resolve) => frame.addEventListener('load', resolve, { once: true }));
    }, `${pages.foreign}/?expose=0`);
    const frame = quiet.frames().find((f) => f.url().startsWith(pages.foreign))!;
    const fromFrame = await frame.evaluate(async () => {
      const got: number[] = [];
      window.addEventListener('message', (event) => got.push(event.ports.length));
      for (let i = 0; i < 10; i++) {
        window.parent.postMessage({ tag: 'tradescript.extensionLink', v: 1, t: 'hello' }, '*');
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      return got;
    });
    expect(fromFrame.filter((ports) => ports > 0)).toEqual([]);
    expect((await seen()).filter((m) => m.includes('"t":"offer"'))).toEqual([]);
    expect((await sessions()).sessions.filter((s) => s.origin === pages.granted)).toHaveLength(1);
    await quiet.close();
  });

  it('SPEC §2 §5 the site’s grant set in the popup applies to the next call (read refuses a write control)', async () => {
    const card = popup.locator(`${POPUP} article.site[data-origin="${pages.granted}"]`);
    // A background tab paints no frames, and a click waits for them.
    await popup.bringToFront();
    await card.locator('button[data-grant=read]').click();
    await expect
      .poll(() => terminal.evaluate(() => (window as unknown as TestWindow).extensionTest.grant()))
      .toBe('read');
    const denied = await addNote('while read');
    expect(denied.envelope.error).toMatchObject({
      code: 'control_unavailable',
      details: { reason: 'attachment-grant' },
    });
    await expect
      .poll(async () => (await sessions()).sessions.find((s) => s.sessionId === sessionId)?.grant)
      .toBe('read');
    await card.locator('button[data-grant=write]').click();
    await expect
      .poll(() => terminal.evaluate(() => (window as unknown as TestWindow).extensionTest.grant()))
      .toBe('write');
    expect((await addNote('write again')).isError).toBe(false);
  });

  it('SPEC §9 the relay credential never reaches the page: not in its storage, IndexedDB or any message it saw', async () => {
    const exposed = await terminal.evaluate(async () => {
      const dump: string[] = [
        JSON.stringify({ ...localStorage }),
        JSON.stringify({ ...sessionStorage }),
        document.cookie,
      ];
      for (const info of await indexedDB.databases()) {
        const db = await new Promise<IDBDatabase>((resolve, reject) => {
          const open = indexedDB.open(info.name!);
          open.onsuccess = () => resolve(open.result);
          open.onerror = () => reject(open.error);
        });
        for (const store of [...db.objectStoreNames]) {
          const all = await new Promise<unknown[]>((resolve) => {
            const request = db.transaction(store).objectStore(store).getAll();
            request.onsuccess = () => resolve(request.result);
          });
          dump.push(JSON.stringify(all));
        }
        db.close();
      }
      return { dump, seen: (window as unknown as TestWindow).__seen };
    });
    expect(exposed.seen.length).toBeGreaterThan(5);
    expect(exposed.seen.some((m) => m.includes('"t":"request"'))).toBe(true);
    for (const text of [...exposed.dump, ...exposed.seen]) expect(text).not.toContain(credentialSecret);
    for (const text of exposed.seen) expect(text).not.toContain(server.ready.relayUrl);
  });

  it('SPEC §10 revoking the site closes its session, tells the page, and no content script runs there any more', async () => {
    const card = popup.locator(`${POPUP} article.site[data-origin="${pages.granted}"]`);
    await card.locator('button[name=revoke]').click();
    await card.waitFor({ state: 'detached' });
    await expect.poll(async () => (await status(terminal))?.message ?? '').toContain('no longer allows this site');
    await expect
      .poll(async () => (await sessions()).sessions.some((s) => s.sessionId === sessionId && s.connected))
      .toBe(false);
    expect((await addNote('after revoke')).isError).toBe(true);
    await terminal.reload();
    await terminal.waitForTimeout(500);
    const seen = await terminal.evaluate(() => (window as unknown as TestWindow).__seen);
    expect(seen.filter((m) => m.includes('"t":"ready"') || m.includes('"t":"offer"'))).toEqual([]);
    expect((await status(terminal))?.linked).toBe(false);
  });
});
