import { defineConfig } from 'vite';

/**
 * The extension build (`npm run build`, step 4), part one: the service worker
 * (`sw.js`, an ES module: MV3 `"type": "module"`) and the popup (`popup.html`
 * and its module), with shared code in `chunks/`, into `dist/extension`; the
 * static `public/manifest.json` is copied as is. The content script, which
 * Chrome runs as a classic script, is built by `vite.content.config.ts`.
 * A service worker may not `import()`, and nothing here does.
 */
const root = import.meta.dirname;

export default defineConfig({
  root,
  base: './',
  publicDir: 'public',
  define: { 'process.env.NODE_ENV': JSON.stringify('production') },
  build: {
    outDir: '../dist/extension',
    emptyOutDir: true,
    target: 'es2022',
    minify: true,
    modulePreload: false,
    reportCompressedSize: false,
    rolldownOptions: {
      input: { sw: `${root}/src/sw/main.ts`, popup: `${root}/popup.html` },
      output: {
        entryFileNames: '[name].js',
        chunkFileNames: 'chunks/[name]-[hash].js',
        assetFileNames: 'assets/[name]-[hash][extname]',
      },
      checks: { bundlerTimings: false },
    },
  },
});
