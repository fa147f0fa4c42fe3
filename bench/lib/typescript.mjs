/**
 * Importing the repo's TypeScript from the bench (see ./tsLoader.mjs).
 */
import { register } from 'node:module';

let registered = false;

/** Registers the TS hook once; later dynamic imports of `.ts` files then work. */
export function registerTsLoader() {
  if (registered) return;
  registered = true;
  register('./tsLoader.mjs', import.meta.url);
}

/**
 * The e2e harness (`e2e/harness/index.ts`).
 * @returns {Promise<any>}
 */
export async function importHarness() {
  registerTsLoader();
  return import('../../e2e/harness/index.ts');
}

/**
 * The e2e fixtures that drive the Chrome extension (`e2e/fixtures/extension/`):
 * the browser-level CDP, the popup, the demo tab in extension mode, the id.
 * @returns {Promise<any>}
 */
export async function importExtensionFixtures() {
  registerTsLoader();
  const [browserCdp, popupDriver, demoTab, extensionId] = await Promise.all([
    import('../../e2e/fixtures/extension/browserCdp.ts'),
    import('../../e2e/fixtures/extension/popupDriver.ts'),
    import('../../e2e/fixtures/extension/demoTab.ts'),
    import('../../e2e/fixtures/extension/extensionId.ts'),
  ]);
  return { ...browserCdp, ...popupDriver, ...demoTab, ...extensionId };
}
