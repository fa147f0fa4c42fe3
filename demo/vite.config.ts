/**
 * Builds the demo terminal into `dist/demo`, which `tradescript-mcp demo`
 * serves on its own origin. Run from the repository root:
 * `npx vite build -c demo/vite.config.ts`.
 */
import { defineConfig } from 'vite';

export default defineConfig({
  root: import.meta.dirname,
  base: './',
  build: {
    outDir: '../dist/demo',
    emptyOutDir: true,
    target: 'es2022',
    sourcemap: true,
  },
  worker: { format: 'es' },
  server: { port: 5173, strictPort: false },
  preview: { port: 4173 },
});
