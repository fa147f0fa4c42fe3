/**
 * Proves the harness itself, before the product exists: Debian's Chromium
 * launches headless through playwright-core, reaches a loopback server, renders,
 * screenshots, and the page's console errors (its worker's included) are collected.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchBrowser, launchPersistentBrowser, newPage } from './harness/index.js';

const PNG_SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

const pages: Record<string, { type: string; body: string }> = {
  '/': {
    type: 'text/html; charset=utf-8',
    body: `<!doctype html><title>smoke</title>
<style>body { margin: 0; background: #0b0e14; color: #e6e6e6; font: 16px sans-serif; }</style>
<div id="price">0</div>
<script type="module">document.querySelector('#price').textContent = String(6 * 7) + '.25';</script>`,
  },
  '/errors': {
    type: 'text/html; charset=utf-8',
    body: `<!doctype html><title>errors</title>
<script type="module">
  console.error('page says no');
  new Worker('/worker.js', { type: 'module' });
</script>`,
  },
  '/worker.js': { type: 'text/javascript', body: `console.error('worker says no');` },
  // Chromium asks for one; a 404 would be a console error of its own.
  '/favicon.ico': { type: 'image/x-icon', body: '' },
};

let server: Server;
let origin: string;

beforeAll(async () => {
  server = createServer((req, res) => {
    const page = pages[req.url ?? ''];
    res.writeHead(page ? 200 : 404, { 'content-type': page?.type ?? 'text/plain' });
    res.end(page?.body ?? 'not found');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  // A browser left open keeps its keep-alive connections; close() would wait for them.
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

describe('e2e harness', () => {
  it('e2e harness: Debian Chromium launches headless and renders a loopback page', async () => {
    const browser = await launchBrowser();
    const { page, errors, close } = await newPage(browser);
    await page.goto(`${origin}/`);
    await page.waitForFunction(() => document.querySelector('#price')?.textContent !== '0');
    expect(await page.textContent('#price')).toBe('42.25');
    const png = await page.screenshot({ clip: { x: 0, y: 0, width: 320, height: 80 } });
    expect(png.subarray(0, 8).equals(PNG_SIGNATURE)).toBe(true);
    expect(png.byteLength).toBeGreaterThan(100);
    expect(errors).toEqual([]);
    await close();
    await browser.close();
  });

  it('e2e harness: a page collects console errors from the page and its worker', async () => {
    const browser = await launchBrowser();
    const { page, errors } = await newPage(browser);
    await page.goto(`${origin}/errors`);
    await expect.poll(() => errors.length, { timeout: 10_000 }).toBe(2);
    expect([...errors].sort()).toEqual(['console.error (worker): worker says no', 'console.error: page says no']);
    // Left open on purpose: the harness closes it after the file.
  });

  it('e2e harness: an unpacked MV3 extension loads headless in a fresh profile and its service worker starts', async () => {
    const extension = mkdtempSync(join(tmpdir(), 'tradescript-smoke-extension-'));
    try {
      const manifest = {
        manifest_version: 3,
        name: 'smoke',
        version: '1.0',
        background: { service_worker: 'sw.js', type: 'module' },
      };
      writeFileSync(join(extension, 'manifest.json'), JSON.stringify(manifest));
      writeFileSync(join(extension, 'sw.js'), 'self.addEventListener("install", () => {});');
      const { context, close } = await launchPersistentBrowser({ extensionPaths: [extension] });
      const worker = context.serviceWorkers()[0] ?? (await context.waitForEvent('serviceworker', { timeout: 15_000 }));
      expect(worker.url()).toMatch(/^chrome-extension:\/\/[a-p]{32}\/sw\.js$/);
      await close();
    } finally {
      rmSync(extension, { recursive: true, force: true });
    }
  });
});
