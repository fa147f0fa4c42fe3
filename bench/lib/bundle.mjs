/**
 * The browser bundle's size (SPEC §12: SDK + bridge runtime ≤ 60 KB gzipped,
 * the snapshot engine loaded only when first used), read from the Vite
 * manifest of dist/browser: an entry, the chunks it imports statically and the
 * workers it ships (`assets` ending in .js) are eager; dynamic imports are lazy.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';

const KB = 1024;

/** @param {string} repoRoot */
export function browserBundle(repoRoot) {
  const dir = join(repoRoot, 'dist/browser');
  const manifestPath = join(dir, '.vite/manifest.json');
  if (!existsSync(manifestPath)) throw new Error('dist/browser/.vite/manifest.json is missing: build first');
  /** @type {Record<string, { file: string, imports?: string[], dynamicImports?: string[], assets?: string[], isEntry?: boolean }>} */
  const manifest = JSON.parse(readFileSync(manifestPath, 'utf8'));
  const entryKey = (file) => Object.keys(manifest).find((k) => manifest[k].isEntry && manifest[k].file === file);

  /** Eager files of some entries, and the dynamic-import roots they reach. */
  const closure = (files) => {
    const eager = new Set();
    const lazyRoots = new Set();
    const visit = (key) => {
      const chunk = manifest[key];
      if (!chunk || eager.has(chunk.file)) return;
      eager.add(chunk.file);
      for (const asset of chunk.assets ?? []) {
        if (!asset.endsWith('.js')) continue;
        // A worker built as a chunk of this build is an entry of its own: what it imports loads with it.
        const worker = entryKey(asset);
        if (worker) visit(worker);
        else eager.add(asset);
      }
      for (const imported of chunk.imports ?? []) visit(imported);
      for (const dynamic of chunk.dynamicImports ?? []) lazyRoots.add(dynamic);
    };
    for (const file of files) {
      const key = entryKey(file);
      if (key) visit(key);
    }
    const lazy = new Set();
    const visitLazy = (key) => {
      const chunk = manifest[key];
      if (!chunk || eager.has(chunk.file) || lazy.has(chunk.file)) return;
      lazy.add(chunk.file);
      for (const imported of [...(chunk.imports ?? []), ...(chunk.dynamicImports ?? [])]) visitLazy(imported);
    };
    for (const root of lazyRoots) visitLazy(root);
    return { eager: [...eager], lazy: [...lazy] };
  };

  const sizes = (files) => {
    const perFile = files.map((file) => {
      const bytes = readFileSync(join(dir, file));
      return { file, rawKB: bytes.length / KB, gzKB: gzipSync(bytes, { level: 9 }).length / KB };
    });
    const sum = (key) => perFile.reduce((total, f) => total + f[key], 0);
    return { rawKB: sum('rawKB'), gzKB: sum('gzKB'), perFile };
  };

  const runtime = closure(['sdk.js', 'bridge.js']);
  const groups = [{ label: 'SDK + bridge runtime (eager)', files: runtime.eager, ...sizes(runtime.eager) }];
  if (runtime.lazy.length > 0)
    groups.push({ label: 'loaded on first use (lazy)', files: runtime.lazy, ...sizes(runtime.lazy) });
  if (existsSync(join(dir, 'element.js'))) {
    const element = closure(['element.js']);
    const own = element.eager.filter((f) => !runtime.eager.includes(f));
    groups.push({ label: 'element (eager)', files: element.eager, ...sizes(element.eager) });
    groups.push({ label: 'element beyond the runtime', files: own, ...sizes(own) });
  } else {
    groups.push({ label: 'element: not built yet (no dist/browser/element.js)', files: [], rawKB: NaN, gzKB: NaN });
  }
  return { groups, eagerGzKB: groups[0].gzKB };
}
