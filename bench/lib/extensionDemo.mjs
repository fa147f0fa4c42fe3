/**
 * The demo terminal linked through the Chrome extension, set up as
 * e2e/extension.test.ts does it and with its fixtures: the built
 * `dist/extension` loaded unpacked in a persistent Chromium profile, the real
 * CLI's `demo --stdio` (its relay admits the extension with no origin flag),
 * the popup pointed at the relay and paired with the code of the pairing
 * link, the demo's site allowed, the demo opened in extension mode
 * (`?bridge=extension`), and `activeTab` granted by running the extension's
 * action on the demo's tab (`Extensions.triggerAction`, what a click on the
 * toolbar icon does).
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { launchOptions, measuredRoot, REQUEST_OPTIONS } from './tradescript.mjs';
import { importExtensionFixtures } from './typescript.mjs';

/** The unpacked extension of the measured build, or null when it is not built. */
export function extensionDir(h) {
  const dir = join(measuredRoot(h), 'dist/extension');
  return existsSync(join(dir, 'manifest.json')) ? dir : null;
}

/**
 * @typedef {object} ExtensionDemo
 * @property {any} fx the e2e extension fixtures
 * @property {import('playwright-core').BrowserContext} context
 * @property {import('playwright-core').Page} page the demo's tab
 * @property {string} sessionId
 * @property {string[]} tools the names tools/list shows
 * @property {(name: string, args: Record<string, unknown>) => Promise<any>} callTool the raw result
 * @property {() => import('playwright-core').Worker | undefined} serviceWorker the extension's, now
 * @property {() => Promise<void>} grantActiveTab runs the action on the demo's tab and brings it to the front
 * @property {() => Promise<void>} close
 */

/**
 * @param {any} h the harness
 * @param {string} dir the unpacked extension ({@link extensionDir})
 * @param {{ viewport: { width: number, height: number } }} opts
 * @returns {Promise<ExtensionDemo>}
 */
export async function openExtensionDemo(h, dir, { viewport }) {
  const fx = await importExtensionFixtures();
  const extensionId = fx.extensionIdOf(dir);
  const closers = [];
  const close = async () => {
    for (const closer of closers.reverse()) await closer().catch(() => {});
  };
  try {
    const server = await h.connectStdioClient(['demo', '--stdio'], launchOptions());
    closers.push(() => server.close());
    const browser = await h.launchPersistentBrowser({ extensionPaths: [dir], args: fx.BROWSER_CDP_ARGS });
    closers.push(() => browser.close());
    const { context } = browser;
    const prefix = `chrome-extension://${extensionId}/`;
    const serviceWorker = () => context.serviceWorkers().find((w) => w.url().startsWith(prefix));
    if (!serviceWorker()) await context.waitForEvent('serviceworker', { timeout: 15_000 });
    const cdp = await fx.BrowserCdp.connect(browser.userDataDir);
    closers.push(async () => cdp.close());

    const popup = await fx.PopupDriver.open(context, extensionId);
    await popup.setRelay(server.ready.relayUrl);
    await popup.pair(new URL(server.ready.pairUrl).hash.replace(/^#pair=/, ''));
    const origin = new URL(server.ready.demoUrl).origin;
    await popup.allowSite(origin);
    // A person closes the popup and goes back to the terminal; an open popup would redraw its activity per call.
    await popup.page.close();

    const page = await context.newPage();
    await fx.openDemoInExtensionMode(page, server.ready.demoUrl, viewport);
    const sessionId = await fx.demoPaired(page);
    const { tools } = await server.client.listTools();
    return {
      fx,
      context,
      page,
      sessionId,
      tools: tools.map((t) => t.name),
      callTool: (name, args) => server.client.callTool({ name, arguments: args }, REQUEST_OPTIONS),
      serviceWorker,
      grantActiveTab: async () => {
        await cdp.triggerAction(extensionId, origin);
        await page.bringToFront();
      },
      close,
    };
  } catch (error) {
    await close();
    throw error;
  }
}
