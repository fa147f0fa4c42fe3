import { defineConfig } from 'vite';

/**
 * The extension build, part two: the content script as one classic script
 * (`content.js`, an IIFE: registered content scripts cannot be modules), added
 * to `dist/extension` after part one.
 */
export default defineConfig({
  root: import.meta.dirname,
  publicDir: false,
  define: { 'process.env.NODE_ENV': JSON.stringify('production') },
  build: {
    outDir: '../dist/extension',
    emptyOutDir: false,
    target: 'es2022',
    minify: true,
    reportCompressedSize: false,
    lib: {
      entry: `${import.meta.dirname}/src/content/main.ts`,
      formats: ['iife'],
      name: 'tradescriptContent',
      fileName: () => 'content.js',
    },
    rolldownOptions: { checks: { bundlerTimings: false } },
  },
});
