import { readFileSync, readdirSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('.', import.meta.url));

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sources(path);
    return entry.name.endsWith('.ts') && !entry.name.endsWith('.test.ts') ? [path] : [];
  });
}

describe('SPEC §1 the host SDK is browser code', () => {
  it('imports no node: module and nothing of ours but src/protocol and itself', () => {
    const offenders: string[] = [];
    for (const file of sources(root)) {
      const text = readFileSync(file, 'utf8');
      for (const match of text.matchAll(/from '([^']+)'/g)) {
        const spec = match[1] ?? '';
        const foreign =
          spec.startsWith('node:') || (spec.startsWith('.') && /\.\.\/(server|bridge|element)\//.test(spec));
        // zod/mini only: the classic namespace defeats tree-shaking and would double the bundle (SPEC §12).
        // Test fixtures stand in for a host, whose own declarations may use classic zod.
        const hostFixture = relative(root, file).startsWith('testing/') && spec === 'zod';
        const allowedPackage = spec === 'zod/mini' || spec === 'idb' || spec.startsWith('.') || hostFixture;
        if (foreign || !allowedPackage) offenders.push(`${relative(root, file)}: ${spec}`);
      }
    }
    expect(offenders).toEqual([]);
  });

  it('SPEC §12 the snapshot engines are only ever loaded by dynamic import()', () => {
    const engines = /(from\s*|import\s*|import\(\s*)['"](@zumer\/snapdom|html-to-image)['"]/g;
    const uses: string[] = [];
    for (const file of sources(root)) {
      for (const match of readFileSync(file, 'utf8').matchAll(engines)) {
        const kind = match[1]?.startsWith('import(') ? 'dynamic' : 'static';
        uses.push(`${relative(root, file)}: ${kind} ${match[2]}`);
      }
    }
    expect(uses.sort()).toEqual([
      'capture/domCapture.ts: dynamic @zumer/snapdom',
      'capture/domCapture.ts: dynamic html-to-image',
    ]);
  });
});
