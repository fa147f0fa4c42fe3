/**
 * SPEC §8, §12: the build-time edits of `@zumer/snapdom` (snapdomEdits.ts)
 * apply to the installed engine, each replacement exactly once, and fail the
 * build loudly when the engine's source no longer holds one. Their effect (a
 * clone kept or redone as the change mid-clone requires, each equal to a fresh
 * capture) is proven in real Chromium by e2e/sdkCapture.test.ts.
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { editSnapdom, REPLACEMENTS, SNAPDOM_VERSION, snapdomEdits } from './snapdomEdits.js';

const require = createRequire(import.meta.url);
const packageDir = dirname(require.resolve('@zumer/snapdom/package.json'));
const installed = JSON.parse(readFileSync(join(packageDir, 'package.json'), 'utf8')) as { version: string };
const source = readFileSync(join(packageDir, 'dist/snapdom.mjs'), 'utf8');

describe('snapdom build-time edits', () => {
  it('are written for the installed engine version', () => {
    expect(installed.version).toBe(SNAPDOM_VERSION);
  });

  it('apply every replacement once to the installed engine, keeping its lines', () => {
    const edited = editSnapdom(source);
    for (const [from, to] of REPLACEMENTS) {
      expect(edited.split(to).length - 1).toBe(1);
      expect(edited.includes(from)).toBe(false);
    }
    const lineOf = (text: string, part: string): number => text.slice(0, text.indexOf(part)).split('\n').length;
    for (const [from, to] of REPLACEMENTS) expect(lineOf(edited, to)).toBe(lineOf(source, from));
    // The helpers come after the engine, so its source map still points right; each edit calls them.
    expect(lineOf(edited, 'function __tsOutsideMoved')).toBeGreaterThanOrEqual(source.split('\n').length);
    expect(edited).toContain('__tsOutsideMoved(t,o,S0)');
    expect(edited).toContain('function __tsMark(n)');
    expect(edited).toContain('sheetsKey===(K=__tsSheetsKey(t))');
    // The engine's functions the helpers call are still there under those names.
    for (const name of ['tn', 'Se', 'fa', 'ma', 'Ie', 'ie', 'xe', 'Cr', 'ii'])
      expect(source).toContain(`function ${name}(`);
    expect(source).toContain('We=t=>');
  });

  it('fail naming the replacement an engine no longer holds, or holds twice', () => {
    const [first] = REPLACEMENTS;
    expect(() => editSnapdom(source.replace(first![0], ''))).toThrow(/expected .* once, found 0/);
    expect(() => editSnapdom(`${source}\n${first![0]}`)).toThrow(/found 2/);
  });

  it('edit only the engine module', () => {
    const plugin = snapdomEdits();
    const transform = plugin.transform as (code: string, id: string) => { code: string } | null;
    expect(transform.call({}, 'const x = 1;', '/app/node_modules/zod/index.js')).toBeNull();
    const id = join(packageDir, 'dist/snapdom.mjs');
    expect(transform.call({}, source, id)?.code).toBe(editSnapdom(source));
  });
});
