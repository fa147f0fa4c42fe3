/**
 * Where the harness finds the built product.
 */
import { fileURLToPath } from 'node:url';

/** The repository root. */
export const repoRoot = fileURLToPath(new URL('../..', import.meta.url));

/** The built CLI (`npm run build` writes it). */
export const serverBin = fileURLToPath(new URL('../../dist/node/server/bin.js', import.meta.url));
