/**
 * STYLE 13 / issue 12: test support lives in one `testing/` folder per layer
 * (`src/testing/` across layers) and never reaches `dist/`. Checked on the built
 * output: no file under a `testing/` folder, and no source map naming a source
 * in one (a bundle that inlined test support would name it there).
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('..', import.meta.url));
const dist = join(root, 'dist');
const TEST_SUPPORT = /(^|[\\/])(testing|testSupport|test)[\\/]/;

function files(dir: string): string[] {
  return readdirSync(dir, { recursive: true, encoding: 'utf8' }).map((file) => join(dir, file));
}

describe('STYLE 13 test support never reaches dist/', () => {
  // Skipped only where nothing is built yet (`npm run check` on a fresh clone); `npm test` builds first.
  it.skipIf(!existsSync(dist))('no built file comes from a testing/ folder, by path or by source map', () => {
    const all = files(dist);
    expect(all.length).toBeGreaterThan(0);
    const byPath = all.map((file) => relative(dist, file)).filter((file) => TEST_SUPPORT.test(file));
    const bySourceMap = all
      .filter((file) => file.endsWith('.map'))
      .flatMap((file) => {
        const { sources = [] } = JSON.parse(readFileSync(file, 'utf8')) as { sources?: string[] };
        return sources
          .filter((source) => TEST_SUPPORT.test(source) && !source.includes('node_modules'))
          .map((source) => `${relative(dist, file)} ← ${source}`);
      });
    expect([...byPath, ...bySourceMap]).toEqual([]);
  });
});
