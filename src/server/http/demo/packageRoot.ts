/**
 * Finds the package root from a compiled or source file location, so the demo
 * and package.json are found from `dist/node/server/...` and from `src/server/...`.
 */
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const PACKAGE_NAME = 'tradescript-mcp';

/** The nearest ancestor directory holding our package.json. */
export function packageRoot(from: string = fileURLToPath(import.meta.url)): string {
  let dir = dirname(from);
  for (;;) {
    const manifest = join(dir, 'package.json');
    if (existsSync(manifest) && readManifest(manifest).name === PACKAGE_NAME) return dir;
    const parent = dirname(dir);
    if (parent === dir) throw new Error(`Cannot find the ${PACKAGE_NAME} package root above ${from}.`);
    dir = parent;
  }
}

function readManifest(path: string): { name?: unknown; version?: unknown } {
  try {
    return JSON.parse(readFileSync(path, 'utf8')) as { name?: unknown; version?: unknown };
  } catch {
    return {};
  }
}

/** The package version from package.json. */
export function packageVersion(root: string = packageRoot()): string {
  const version = readManifest(join(root, 'package.json')).version;
  return typeof version === 'string' ? version : '0.0.0';
}
