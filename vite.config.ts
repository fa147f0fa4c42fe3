import { fileURLToPath } from 'node:url';
import { RolldownMagicString } from 'rolldown';
import { defineConfig, type Plugin } from 'vite';
import { snapdomEdits } from './scripts/snapdomEdits.js';

/**
 * The browser library build (`npm run build`, step 2): the host SDK, the bridge
 * runtime and the `<tradescript-bridge>` element, as self-contained
 * ES modules in `dist/browser` (`sdk.js`, `bridge.js`, `element.js`, shared code in
 * `chunks/`, the bridge worker in `assets/`). Dependencies (zod, idb, lit,
 * the snapshot engines) are bundled so the files load in a page or an extension
 * without a bundler; a lazily imported module stays its own chunk, so the snapshot
 * engine is fetched only when first used. The demo terminal has its own config
 * (`demo/vite.config.ts`); lightweight-charts is not part of this build.
 */

/** Entry name → source file (each is a package export: `.`, `./bridge`, `./element`). */
const entries: Record<string, string> = {
  sdk: 'src/sdk/index.ts',
  bridge: 'src/bridge/index.ts',
  element: 'src/element/index.ts',
};

/**
 * `exposeToExtension` (`tradescript-mcp/extension`) is built in a pass of its
 * own (`--mode extension`, scripts/build.mjs runs both): bundled with the
 * others, the protocol modules it shares with the SDK would go into one shared
 * chunk holding the union of both entries' exports, and every page loading the
 * SDK would fetch the relay-frame schemas only the extension link needs.
 */
const extensionEntries: Record<string, string> = { extension: 'src/bridge/extension/page/index.ts' };

const root = fileURLToPath(new URL('.', import.meta.url));

/**
 * Building a zod schema has no side effect, but a bundler cannot know it: without
 * this, every schema a module defines (with its descriptions) ships whether or not
 * the page uses it. Nothing of ours calls `z.*` for an effect (no `z.config`, no
 * registry writes), so calls on `z` are declared pure and unused schemas drop out.
 */
const ZOD_IS_PURE = { manualPureFunctions: ['z'] };

/** The bridge worker's source, as `connectBridge` names it. */
const WORKER_SOURCE = 'src/bridge/worker/worker.ts';
const WORKER_NAME = 'worker';
const CONNECT_SOURCE = 'src/bridge/page/connectBridge.ts';
const WORKER_URL = "new URL('../worker/worker.ts', import.meta.url)";

/**
 * The bridge worker as a chunk of this build rather than a bundle of its own
 * (Vite's worker plugin bundles a worker apart, with its own copy of zod and the
 * protocol): emitted here as `assets/worker-[hash].js`, it imports the chunks it
 * shares with the SDK (`chunks/protocol-*.js`, zod's core), so a page downloads
 * them once (SPEC §12's bundle: 68.5 → 55.9 KB). `connectBridge`'s URL of the
 * worker's source becomes the emitted file's, relative to the module that names
 * it, before Vite's worker plugin would see it; the minifier keeps the name
 * `Worker` (connectBridge's cross-origin-aware constructor), so the output still
 * reads `new Worker(new URL('…', import.meta.url))` for a vendor's bundler.
 */
function workerAsChunk(): Plugin {
  let ref = '';
  return {
    name: 'tradescript-worker-as-chunk',
    enforce: 'pre',
    buildStart() {
      ref = this.emitFile({ type: 'chunk', id: `${root}${WORKER_SOURCE}`, name: WORKER_NAME });
    },
    transform(code, id) {
      if (!id.endsWith(CONNECT_SOURCE)) return null;
      const at = code.indexOf(WORKER_URL);
      // Loud rather than a silent second copy of the protocol in a worker bundled apart.
      if (at < 0) this.error(`${CONNECT_SOURCE} no longer starts the worker with ${WORKER_URL}: update workerAsChunk`);
      const edited = new RolldownMagicString(code);
      edited.overwrite(at, at + WORKER_URL.length, `import.meta.ROLLUP_FILE_URL_${ref}`);
      return { code: edited };
    },
    // A bare `new URL('…', import.meta.url)` inside `new Worker(…)`: a vendor's bundler sees the pattern and
    // bundles the worker with what it imports (as an asset, the copied file would miss its chunks).
    resolveFileUrl({ referenceId, relativePath }) {
      if (referenceId !== ref) return null;
      return `new URL(${JSON.stringify(relativePath.startsWith('.') ? relativePath : `./${relativePath}`)}, import.meta.url)`;
    },
    // The manifest lists the worker among what the chunk starting it loads (scripts/bundle.test.ts sizes it).
    generateBundle(_options, bundle) {
      for (const chunk of Object.values(bundle)) {
        if (chunk.type !== 'chunk' || !chunk.moduleIds.some((id) => id.endsWith(CONNECT_SOURCE))) continue;
        chunk.viteMetadata?.importedAssets.add(this.getFileName(ref));
      }
    },
  };
}

export default defineConfig(({ mode }) => {
  const extension = mode === 'extension';
  return {
    root,
    publicDir: false,
    plugins: extension ? [] : [workerAsChunk(), snapdomEdits()],
    // Every URL the build writes (the worker, lazy chunks) relative to the module that loads it, so the
    // prebuilt files work from any path or CDN (SPEC §10); scripts/bundle.test.ts scans for absolute ones.
    base: './',
    // Lib mode leaves process.env alone; bundled dependencies must not reach for `process` in a page.
    define: { 'process.env.NODE_ENV': JSON.stringify('production') },
    build: {
      outDir: 'dist/browser',
      emptyOutDir: !extension,
      target: 'es2022',
      sourcemap: true,
      // scripts/bundle.test.ts reads the manifest to size the entries' static closure.
      manifest: !extension,
      reportCompressedSize: false,
      lib: {
        entry: extension ? extensionEntries : entries,
        formats: ['es'],
        fileName: (_format, entryName) => `${entryName}.js`,
      },
      rolldownOptions: {
        output: {
          // The worker keeps its hashed name in assets/ (a CDN may cache it for long).
          chunkFileNames: extension
            ? 'chunks/extension-[name]-[hash].js'
            : (chunk) => (chunk.name === WORKER_NAME ? 'assets/[name]-[hash].js' : 'chunks/[name]-[hash].js'),
          // `Worker` kept: see workerAsChunk.
          minify: { compress: true, mangle: { reserved: ['Worker'] }, codegen: true },
        },
        treeshake: ZOD_IS_PURE,
        // The worker is bundled inside one plugin's transform, which then always "looks slow".
        checks: { bundlerTimings: false },
      },
    },
    worker: { format: 'es', rolldownOptions: { treeshake: ZOD_IS_PURE, output: { minify: true } } },
  };
});
