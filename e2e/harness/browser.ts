/**
 * Debian's Chromium through playwright-core, headless, with the flags this
 * machine needs, and pages that collect their console errors.
 */
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { settleWithin, track } from './cleanup.js';
import { killTree, pidsWithArgument } from './processTree.js';
import { harnessTimeouts } from './timeouts.js';

/** Flags for Chromium in a container without a GPU, a sandbox or background chatter. */
export const CHROMIUM_ARGS: readonly string[] = [
  '--no-sandbox',
  '--disable-gpu',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--disable-quic',
];

/** `TRADESCRIPT_CHROMIUM`, else `CHROMIUM_PATH`, else Debian's `/usr/bin/chromium`. */
export function chromiumPath(): string {
  return process.env.TRADESCRIPT_CHROMIUM ?? process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
}

/** Options of {@link launchBrowser} and {@link launchPersistentBrowser}. */
export interface LaunchOptions {
  /** Default true (the machines have no display). */
  headless?: boolean;
  /** Added to {@link CHROMIUM_ARGS}. */
  args?: string[];
}

/**
 * A switch Chromium ignores, unique per launch, so a browser whose graceful
 * close hangs can still be found and killed.
 */
function launchMarker(): string {
  return `--tradescript-harness-launch=${randomUUID()}`;
}

/** Closes gracefully within {@link harnessTimeouts.closeMs}, else kills the marked processes. */
async function closeOrKill(close: () => Promise<void>, marker: string): Promise<void> {
  try {
    await settleWithin(close(), harnessTimeouts.closeMs, 'closing Chromium');
  } catch {
    for (const pid of pidsWithArgument(marker)) killTree(pid, 'SIGKILL');
  }
}

/**
 * Launches Chromium; closed at the end of the test file at the latest (and
 * killed if it does not close within {@link harnessTimeouts.closeMs}).
 */
export async function launchBrowser(opts: LaunchOptions = {}): Promise<Browser> {
  const marker = launchMarker();
  const browser = await chromium.launch({
    executablePath: chromiumPath(),
    headless: opts.headless ?? true,
    args: [...CHROMIUM_ARGS, marker, ...(opts.args ?? [])],
    timeout: harnessTimeouts.launchMs,
  });
  const untrack = track(() => closeOrKill(() => browser.close(), marker));
  browser.once('disconnected', untrack);
  return browser;
}

/** Options of {@link launchPersistentBrowser}. */
export interface PersistentLaunchOptions extends LaunchOptions {
  /** Unpacked extensions to load (`--load-extension`). */
  extensionPaths?: string[];
}

/** A persistent context and its throwaway profile. */
export interface PersistentBrowser {
  context: BrowserContext;
  userDataDir: string;
  /** Closes the browser and removes the profile. */
  close(): Promise<void>;
}

/**
 * Launches Chromium with a fresh user-data dir (what extensions need);
 * closed, and the profile removed, at the end of the test file at the latest.
 */
export async function launchPersistentBrowser(opts: PersistentLaunchOptions = {}): Promise<PersistentBrowser> {
  const userDataDir = mkdtempSync(join(tmpdir(), 'tradescript-profile-'));
  const marker = launchMarker();
  const extensions = opts.extensionPaths ?? [];
  const extensionArgs =
    extensions.length > 0
      ? [`--disable-extensions-except=${extensions.join(',')}`, `--load-extension=${extensions.join(',')}`]
      : [];
  let context: BrowserContext;
  try {
    context = await chromium.launchPersistentContext(userDataDir, {
      executablePath: chromiumPath(),
      headless: opts.headless ?? true,
      args: [...CHROMIUM_ARGS, marker, ...extensionArgs, ...(opts.args ?? [])],
      timeout: harnessTimeouts.launchMs,
    });
  } catch (error) {
    rmSync(userDataDir, { recursive: true, force: true });
    throw error;
  }
  let closed: Promise<void> | undefined;
  const close = (): Promise<void> =>
    (closed ??= (async () => {
      untrack();
      await closeOrKill(() => context.close(), marker);
      rmSync(userDataDir, { recursive: true, force: true });
    })());
  const untrack = track(close);
  return { context, userDataDir, close };
}

/** A page with what went wrong in it. */
export interface HarnessPage {
  page: Page;
  context: BrowserContext;
  /**
   * `console.error` messages of the page and its workers, uncaught exceptions
   * (`pageerror: …`) and crashes, in order. Assert it is empty at the end of a
   * test that expects a clean page.
   */
  errors: string[];
  /** Closes the page (and its context, when `newPage` created one). */
  close(): Promise<void>;
}

/**
 * Opens a page in a new context of `browser` (or in the given context) and
 * starts collecting its errors. Navigation waits are bounded by
 * {@link harnessTimeouts.navigationMs}.
 */
export async function newPage(target: Browser | BrowserContext): Promise<HarnessPage> {
  const ownContext = 'newContext' in target;
  const context = ownContext ? await target.newContext() : target;
  const page = await context.newPage();
  page.setDefaultNavigationTimeout(harnessTimeouts.navigationMs);
  const errors: string[] = [];
  page.on('console', (message) => {
    if (message.type() !== 'error') return;
    const where = message.worker() ? ' (worker)' : '';
    errors.push(`console.error${where}: ${message.text()}`);
  });
  page.on('pageerror', (error) => errors.push(`pageerror: ${error.message}`));
  page.on('crash', () => errors.push('crash: the page crashed'));
  let closed: Promise<void> | undefined;
  const close = (): Promise<void> =>
    (closed ??= (async () => {
      untrack();
      if (ownContext) await context.close();
      else await page.close();
    })());
  const untrack = track(close);
  return { page, context, errors, close };
}
