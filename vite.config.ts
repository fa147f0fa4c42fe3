import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vite';

/**
 * The browser library build (`npm run build`, step 2): the host SDK, the bridge
 * runtime and the `<tradescript-bridge>` element, as self-contained
 * ES modules in `dist/browser` (`sdk.js`, `bridge.js`, `element.js`, shared code in
 * `chunks/`, the bridge worker in `assets/`). Dependencies (zod, comlink, idb, lit,
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

export default defineConfig(({ mode }) => {
  const extension = mode === 'extension';
  return {
    root,
    publicDir: false,
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
          chunkFileNames: extension ? 'chunks/extension-[name]-[hash].js' : 'chunks/[name]-[hash].js',
          minify: true,
        },
        treeshake: ZOD_IS_PURE,
        // The worker is bundled inside one plugin's transform, which then always "looks slow".
        checks: { bundlerTimings: false },
      },
    },
    worker: { format: 'es', rolldownOptions: { treeshake: ZOD_IS_PURE, output: { minify: true } } },
  };
});
