/**
 * The package as users install it (SPEC §10, §11; STYLE 14): the `npm pack`
 * tarball installed into a fresh project outside the repository, its own CLI
 * serving MCP and the relay, a real MCP client calling into Chromium:
 *
 * (a) a Vite + TypeScript app importing `tradescript-mcp` and
 *     `tradescript-mcp/element`, type-checked and built with the project's own
 *     TypeScript and Vite;
 * (b) a static page loading the prebuilt `dist/browser` files from
 *     `/vendor/tradescript/`, not the site root (the bridge worker included);
 * (c) the extension from the tarball's `dist/extension`, loaded unpacked, on a
 *     static page offering its host with `tradescript-mcp/extension`.
 *
 * One pack and one install serve all three (npm's cache keeps it off the network).
 */
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CallReceipt, ContextData } from '../src/protocol/index.js';
import { extensionIdOf } from './fixtures/extension/extensionId.js';
import { PopupDriver } from './fixtures/extension/popupDriver.js';
import {
  callTool,
  connectHttpClient,
  launchPersistentBrowser,
  startServer,
  type PersistentBrowser,
  type ServerHandle,
} from './harness/index.js';
import { childEnv } from './harness/home.js';
import {
  createConsumerProject,
  serveStatic,
  type ConsumerProject,
  type StaticSite,
} from './support/consumerProject.js';

const run = promisify(execFile);
const SESSION = { scope: 'session' } as const;

interface ConsumerWindow {
  consumer: { status(): { state: string; sessionId: string | null; message: string | null } | null; notes(): string[] };
}

let project: ConsumerProject;
let viteSite: StaticSite;
let staticSite: StaticSite;
let cdnSite: StaticSite;
let server: ServerHandle;
let browser: PersistentBrowser;
let client: Client;
let typecheck: Promise<{ stdout: string; stderr: string }>;

beforeAll(async () => {
  project = await createConsumerProject(new URL('./fixtures/consumer/', import.meta.url));
  // The vendor's own checks and build, from the project's node_modules only.
  typecheck = project.exec('typescript', ['-p', 'viteApp/tsconfig.json']);
  typecheck.catch(() => undefined);
  await project.exec('vite', ['build', 'viteApp', '--logLevel', 'warn']);
  viteSite = await serveStatic({ '/': join(project.dir, 'viteApp/dist') });
  staticSite = await serveStatic({
    '/vendor/tradescript/': join(project.packageDir, 'dist/browser'),
    '/vendor/zod/': join(project.dir, 'node_modules/zod'),
    '/': join(project.dir, 'staticSite'),
  });
  cdnSite = await serveStatic(
    { '/tradescript-mcp/': join(project.packageDir, 'dist/browser') },
    { 'access-control-allow-origin': '*' },
  );
  server = await startServer(
    ['serve', '--http', '127.0.0.1:0', '--allowed-origin', viteSite.origin, '--allowed-origin', staticSite.origin],
    { bin: project.cli },
  );
  browser = await launchPersistentBrowser({ extensionPaths: [join(project.packageDir, 'dist/extension')] });
  client = await connectHttpClient(server.ready.mcpUrl!);
}, 300_000);

afterAll(async () => {
  await client?.close().catch(() => undefined);
  await browser?.close();
  await server?.close();
  await viteSite?.close();
  await staticSite?.close();
  await cdnSite?.close();
  project?.close();
});

/** A fresh single-use code from the installed CLI's `pair`. */
async function pairCode(): Promise<string> {
  const { stdout } = await run(process.execPath, [project.cli, 'pair', '--json'], { env: childEnv(server.home) });
  return (JSON.parse(stdout) as { code: string }).code;
}

/** Requests the page made that found nothing (a browser's own favicon request aside). */
const notFound = (site: StaticSite) => site.missing.filter((path) => path !== '/favicon.ico');

/** Waits until the consumer page reports `paired`; returns its session id (else fails with what the page saw). */
async function paired(page: Page, site: StaticSite): Promise<string> {
  const status = () => page.evaluate(() => (window as unknown as ConsumerWindow).consumer?.status() ?? null);
  try {
    await page.waitForFunction(
      () => (window as unknown as ConsumerWindow).consumer?.status()?.state === 'paired',
      null,
      { timeout: 30_000 },
    );
  } catch {
    throw new Error(
      `the page did not pair: ${JSON.stringify(await status())}; not found: ${notFound(site).join(', ')}`,
    );
  }
  const sessionId = (await status())?.sessionId;
  if (!sessionId) throw new Error('paired without a session id');
  return sessionId;
}

/** An MCP client adds a note in the session; the page's control ran it. */
async function addNote(page: Page, sessionId: string, text: string, revisions?: Record<string, number>) {
  const added = await callTool<CallReceipt>(client, 'tradescript_call', {
    sessionId,
    target: SESSION,
    controlId: 'notes.add',
    args: [text],
    ...(revisions ? { expectedRevisions: revisions } : {}),
  });
  expect(added.isError, JSON.stringify(added.envelope.error)).toBe(false);
  expect(await page.evaluate(() => (window as unknown as ConsumerWindow).consumer.notes())).toContain(text);
  return added.envelope.data!;
}

describe('SPEC §10 the packed package in a vendor’s own setups', () => {
  it('SPEC §10 (a) a Vite + TypeScript app imports tradescript-mcp and tradescript-mcp/element, type-checks, builds with its own Vite and pairs', async () => {
    await expect(typecheck).resolves.toBeDefined();
    const page = await browser.context.newPage();
    await page.goto(`${viteSite.origin}/?relay=${encodeURIComponent(server.ready.relayUrl)}#pair=${await pairCode()}`);
    const sessionId = await paired(page, viteSite);
    const context = await callTool<ContextData>(client, 'tradescript_get_context', { sessionId, target: SESSION });
    const revisions = context.envelope.data!.controllerRevisions['notes']!;
    const receipt = await addNote(page, sessionId, 'from the Vite app', revisions);
    expect(receipt.revisionsAfter).toEqual({ notes: revisions['notes']! + 1 });
    expect(notFound(viteSite)).toEqual([]);
    await page.close();
  });

  it('SPEC §10 (b) a static page loads the prebuilt dist/browser files from /vendor/tradescript/, worker included, and pairs', async () => {
    const page = await browser.context.newPage();
    await page.goto(
      `${staticSite.origin}/?relay=${encodeURIComponent(server.ready.relayUrl)}#pair=${await pairCode()}`,
    );
    const sessionId = await paired(page, staticSite);
    await addNote(page, sessionId, 'from the static page');
    expect(staticSite.requested).toContainEqual(
      expect.stringMatching(/^\/vendor\/tradescript\/assets\/worker-[\w-]+\.js$/),
    );
    expect(notFound(staticSite)).toEqual([]);
    await page.close();
  });

  it('SPEC §10 (b) the same files from another origin (a CDN): the worker starts through a same-origin trampoline and pairs', async () => {
    const page = await browser.context.newPage();
    const cdn = encodeURIComponent(`${cdnSite.origin}/tradescript-mcp`);
    const relay = encodeURIComponent(server.ready.relayUrl);
    await page.goto(`${staticSite.origin}/cdn.html?cdn=${cdn}&relay=${relay}#pair=${await pairCode()}`);
    const sessionId = await paired(page, staticSite);
    await addNote(page, sessionId, 'from the CDN page');
    expect(cdnSite.requested).toContainEqual(expect.stringMatching(/^\/tradescript-mcp\/assets\/worker-[\w-]+\.js$/));
    expect(notFound(cdnSite)).toEqual([]);
    await page.close();
  });

  it('SPEC §10 (c) the extension loaded unpacked from the tarball’s dist/extension links a page using tradescript-mcp/extension', async () => {
    const extensionDir = join(project.packageDir, 'dist/extension');
    const popup = await PopupDriver.open(browser.context, extensionIdOf(extensionDir));
    await popup.setRelay(server.ready.relayUrl);
    await popup.pair(await pairCode());
    await popup.allowSite(staticSite.origin);
    const page = await browser.context.newPage();
    await page.goto(`${staticSite.origin}/extension.html`);
    const sessionId = await paired(page, staticSite);
    await addNote(page, sessionId, 'through the extension');
    expect(notFound(staticSite)).toEqual([]);
    await page.close();
  });
});
