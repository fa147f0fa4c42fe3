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
