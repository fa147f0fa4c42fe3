/**
 * Builds the demo terminal into `dist/demo`, which `tradescript-mcp demo`
 * serves on its own origin. Run from the repository root:
 * `npx vite build -c demo/vite.config.ts`.
 */
import { defineConfig } from 'vite';
import { snapdomEdits } from '../scripts/snapdomEdits.js';

export default defineConfig({
  root: import.meta.dirname,
  base: './',
  // The snapshot engine as the library ships it (scripts/snapdomEdits.ts).
  plugins: [snapdomEdits()],
  build: {
    outDir: '../dist/demo',
    emptyOutDir: true,
    target: 'es2022',
    sourcemap: true,
    rolldownOptions: {
      output: {
        // The chart library and zod in chunks of their own: no one file over Vite's 500 kB warning, which
        // `npm start` would otherwise print in a form that looks like an error.
        codeSplitting: {
          groups: [
            { name: 'lightweight-charts', test: /node_modules[\\/]lightweight-charts/ },
            { name: 'zod', test: /node_modules[\\/]zod/ },
          ],
        },
      },
    },
  },
  worker: { format: 'es' },
  server: { port: 5173, strictPort: false },
  preview: { port: 4173 },
});
