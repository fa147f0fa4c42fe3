/**
 * Checks of the BUILT browser code (`npm run build` output), SPEC §1 and §12:
 * browser bundles import no Node module, dist/browser loads without a bundler,
 * and the SDK + bridge runtime stay within 60 KB gzipped (the snapshot engine,
 * loaded only when first used, does not count).
 */
import { builtinModules } from 'node:module';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('..', import.meta.url));
const distBrowser = join(root, 'dist/browser');
const distDemo = join(root, 'dist/demo');
const manifestFile = join(distBrowser, '.vite/manifest.json');
/** SPEC §12's target: browser bundle (SDK + bridge runtime) ≤ 60 KB gzipped. */
const BUDGET_BYTES = 60 * 1024;
/**
 * The ceiling this test holds the bundle to, so it can only shrink. Measured
 * 68.6 KB after moving the protocol to zod/mini (from 106 KB), then 65.6 KB once
 * the tool definitions (descriptions included) stopped riding into the worker
 * with `TOOL_NAMES`; raised to 68.6 KB by issue 12 (the host-call link parses
 * every message with zod at both ends). Issue 15: 68.5 → 55.9 KB once the bridge
 * worker became a chunk of the library build (vite.config.ts, workerAsChunk)
 * importing the protocol and zod's core from the chunks the page loads, instead
 * of a bundle of its own carrying a second copy (about 12.6 KB). What is left:
 * zod's JSON Schema generation on the page (about 6 KB, descriptors need it at
 * declaration), zod's core once (about 10 KB). Lower this as the bundle shrinks;
 * never raise it without a note in the issue tracker. Raised 56 → 57 KB by issue 15
 * (noted there): the lazy deadline and the ASCII byte count, per-call savings, cost 0.2 KB.
 * Raised 57 → 57.5 KB by issue 15 item 1: relay frame batches (the reading and
 * send queue in src/protocol, the worker's negotiation) and the page↔worker
 * link's batches cost 0.4 KB (56.9 → 57.3 KB) for 8 concurrent callers' rate.
 * Lowered 57.5 → 57 KB by issue 15 item 1 (the relay socket on the page, the
 * worker keeping the observer): comlink went, 57.3 → 56.9 KB.
 * Raised 57 → 58 KB by issue 15 item 1 (the page's own per-call CPU): the page
 * reads relay frames, and checks its response frames, with the eval-free fast
 * parser built from the zod schemas (src/protocol/fastParse.ts) instead of
 * zod's generic walk, which was the largest block of the page's own per-call
 * work (Chromium page path −8 µs/call, about −22 %); it costs 1,560 B. Room
 * made first: the host-call link's request half, which only the extension
 * uses, left the page's and the worker's bundle (−969 B, 58,361 → 57,392 B);
 * with the fast path 58,952 B (57.6 KB). Raised 58 → 58.5 KB by issue 15 item 3
 * (noted there): the bridge worker encodes a full-size capture from a bitmap
 * renderer instead of drawing it into a 2D canvas first (about 11 ms of a
 * 1280×720 terminal snapshot), which costs 49 B (59,441 B).
 */
const CEILING_BYTES = 58.5 * 1024;

const NOT_BUILT = 'dist/browser is not built: run `npm run build` (npm test builds first)';
const DEMO_NOT_BUILT = 'dist/demo is not built: run `npm run build` (npm test builds first)';

/** Every .js/.mjs file under `dir`. */
function jsFiles(dir: string): string[] {
  return readdirSync(dir, { recursive: true, encoding: 'utf8' })
    .filter((file) => /\.m?js$/.test(file))
    .map((file) => join(dir, file));
}

const builtins = new Set(builtinModules);

/**
 * Import specifiers in bundler output: static `import`/`export … from` at a
 * statement start, dynamic `import("…")`, `require("…")`. Only plain quotes:
 * generated imports never use template literals, while messages often quote a
 * command in backticks after the word "from".
 */
const IMPORT_PATTERNS = [
  /(?:^|[;}\n])\s*(?:import|export)\s*(?:[\w*${}\s,]+?\s*from\s*)?(["'])([^"'\n]+)\1/g,
  /\bimport\s*\(\s*(["'])([^"'\n]+)\1\s*\)/g,
  /\brequire\s*\(\s*(["'])([^"'\n]+)\1\s*\)/g,
];

/** Every import specifier in `code`. */
function specifiers(code: string): string[] {
  return IMPORT_PATTERNS.flatMap((pattern) => [...code.matchAll(pattern)].map((m) => m[2] ?? ''));
}

/** `node:*` or a Node built-in (also a subpath such as `fs/promises`). */
function isNodeModule(specifier: string): boolean {
  return specifier.startsWith('node:') || builtins.has(specifier) || builtins.has(specifier.split('/')[0] ?? '');
}

/**
 * Vite does not fail on a Node import in a browser build: it warns and swaps in
 * an empty stub chunk that throws on use. Its name is the trace left behind.
 */
const VITE_NODE_STUB = '__vite-browser-external';

/** `file: specifier` for every Node import (or Vite's stub of one) in the files. */
function nodeImports(files: string[]): string[] {
  return files.flatMap((file) => {
    const code = readFileSync(file, 'utf8');
    const found = specifiers(code)
      .filter(isNodeModule)
      .map((specifier) => `${relative(root, file)}: ${specifier}`);
    if (file.includes(VITE_NODE_STUB) || code.includes(VITE_NODE_STUB)) {
      found.push(`${relative(root, file)}: a Node module Vite replaced by ${VITE_NODE_STUB} (see the build's warning)`);
    }
    return found;
  });
}

interface ManifestChunk {
  file: string;
  name?: string;
  isEntry?: boolean;
  imports?: string[];
  assets?: string[];
}

/** The files an entry loads before its first dynamic import: its static imports and its workers. */
function staticClosure(manifest: Record<string, ManifestChunk>, key: string, into = new Set<string>()): Set<string> {
  const chunk = manifest[key];
  if (!chunk || into.has(chunk.file)) return into;
  into.add(chunk.file);
  for (const asset of chunk.assets ?? []) {
    if (!asset.endsWith('.js')) continue;
    // A worker built as a chunk of this build is an entry of its own: what it imports loads with it.
    const worker = Object.keys(manifest).find((k) => manifest[k]?.isEntry && manifest[k]?.file === asset);
    if (worker) staticClosure(manifest, worker, into);
    else into.add(asset);
  }
  for (const imported of chunk.imports ?? []) staticClosure(manifest, imported, into);
  return into;
}

const browserBuilt = existsSync(distBrowser);
const demoBuilt = existsSync(distDemo);
if (!browserBuilt) console.warn(`scripts/bundle.test.ts: skipping dist/browser checks: ${NOT_BUILT}`);
if (!demoBuilt) console.warn(`scripts/bundle.test.ts: skipping dist/demo checks: ${DEMO_NOT_BUILT}`);

const distExtension = join(root, 'dist/extension');
const extensionBuilt = existsSync(distExtension);

/**
 * A root-absolute URL of a built file in code, markup or a manifest: `"/assets/x.js"`,
 * `src="/x.js"`, `url(/x.png)`, `new URL("/x", import.meta.url)`. Served from any path
 * but the site root (or a CDN) it names the wrong file (SPEC §10).
 */
const ROOT_ABSOLUTE_ASSET =
  /(?:["'`(=]|url\()\s*\/(?!\/)[\w@~.-][\w@~./-]*\.(?:m?js|css|wasm|png|svg|jpe?g|webp|gif|ico|woff2?|ttf|json|html|map)\b|new URL\(\s*["'`]\/(?!\/)[^"'`]*/g;
/**
 * Not assets: the demo page fetches its relay address from the demo server's
 * fixed endpoint on its own origin (src/server/demoServer), wherever it is served.
 */
const NOT_ASSETS = new Set(['dist/demo: /tradescript-config.json']);

/** `file: url` for every root-absolute asset URL in the text files under `dir`. */
function rootAbsoluteUrls(dir: string): string[] {
  const files = readdirSync(dir, { recursive: true, encoding: 'utf8' }).filter((file) =>
    /\.(?:m?js|css|html|json)$/.test(file),
  );
  return files.flatMap((file) => {
    const text = readFileSync(join(dir, file), 'utf8');
    return [...text.matchAll(ROOT_ABSOLUTE_ASSET)]
      .map((match) => match[0].replace(/^(?:["'`(=]|url\(|new URL\(\s*["'`])\s*/, ''))
      .filter((url) => !NOT_ASSETS.has(`${relative(root, dir)}: ${url}`))
      .map((url) => `${relative(root, join(dir, file))}: ${url}`);
  });
}

describe('built browser code', () => {
  it.skipIf(!browserBuilt || !demoBuilt || !extensionBuilt)(
    'SPEC §10: every asset URL in dist/browser, dist/demo and dist/extension is relative to the module that loads it',
    () => {
      expect(rootAbsoluteUrls(distBrowser)).toEqual([]);
      expect(rootAbsoluteUrls(distDemo)).toEqual([]);
      expect(rootAbsoluteUrls(distExtension)).toEqual([]);
    },
  );

  it('the scan finds the root-absolute URLs it is meant to find', () => {
    const samples = [
      'new Worker(new URL(`/assets/worker-AbC.js`,``+import.meta.url))',
      '<script type="module" src="/assets/index.js"></script>',
      'background:url(/img/x.png)',
      'import("/chunks/lazy-1.js")',
    ];
    for (const sample of samples) expect(sample.match(ROOT_ABSOLUTE_ASSET), sample).not.toBeNull();
    const fine = ['new URL(`../assets/worker.js`,import.meta.url)', 'src="./assets/index.js"', '"//cdn.example/x.js"'];
    for (const sample of fine) expect(sample.match(ROOT_ABSOLUTE_ASSET), sample).toBeNull();
  });

  it.skipIf(!browserBuilt)('SPEC §1: dist/browser imports no node: or Node built-in module', () => {
    const files = jsFiles(distBrowser);
    expect(files.length).toBeGreaterThan(0);
    expect(nodeImports(files)).toEqual([]);
  });

  it.skipIf(!browserBuilt)('dist/browser loads without a bundler: every import is relative', () => {
    const bare = jsFiles(distBrowser).flatMap((file) =>
      specifiers(readFileSync(file, 'utf8'))
        .filter((specifier) => !/^\.{1,2}\//.test(specifier))
        .map((specifier) => `${relative(root, file)}: ${specifier}`),
    );
    expect(bare).toEqual([]);
  });

  it.skipIf(!demoBuilt)('SPEC §1: dist/demo imports no node: or Node built-in module', () => {
    const files = jsFiles(distDemo);
    expect(files.length).toBeGreaterThan(0);
    expect(nodeImports(files)).toEqual([]);
  });

  it.skipIf(!browserBuilt)(
    'SPEC §12: SDK + bridge runtime (the worker and what it imports included) stay under the 58.5 KB ceiling (60 KB target)',
    () => {
      const manifest = JSON.parse(readFileSync(manifestFile, 'utf8')) as Record<string, ManifestChunk>;
      const entries = Object.keys(manifest).filter((key) => {
        const chunk = manifest[key];
        return chunk?.isEntry === true && (chunk.name === 'sdk' || chunk.name === 'bridge');
      });
      expect(entries.length).toBeGreaterThan(0);
      const files = new Set<string>();
      for (const key of entries) staticClosure(manifest, key, files);
      const sizes = [...files]
        .sort()
        .map((file) => ({ file, gzip: gzipSync(readFileSync(join(distBrowser, file)), { level: 9 }).byteLength }));
      const total = sizes.reduce((sum, s) => sum + s.gzip, 0);
      const kb = (bytes: number): string => `${(bytes / 1024).toFixed(1)} KB`;
      console.log(
        `browser bundle (SDK + bridge runtime, static imports and workers), gzip -9: ${sizes.map((s) => `${s.file} ${kb(s.gzip)}`).join(', ')}; total ${kb(total)}; SPEC §12 target ${kb(BUDGET_BYTES)} ${total <= BUDGET_BYTES ? 'met' : 'MISSED'}, ceiling ${kb(CEILING_BYTES)}`,
      );
      expect(total).toBeLessThanOrEqual(CEILING_BYTES);
    },
  );
});
