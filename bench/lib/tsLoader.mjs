/**
 * A Node module hook that lets the plain-.mjs bench import the repo's TypeScript
 * (the e2e harness and what it imports from src/protocol): Node 20 cannot strip
 * types. `.js` specifiers written in TS sources resolve to their `.ts` file, and
 * `.ts` files are transpiled (types erased, nothing checked) with the repo's
 * own `typescript`. Registered by `registerTsLoader()` in `./typescript.mjs`.
 */
import { readFile } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

/** @type {typeof import('typescript') | undefined} */
let ts;

/** @param {string} specifier @param {{parentURL?: string}} context @param {Function} next */
export async function resolve(specifier, context, next) {
  const parent = context.parentURL;
  if (
    parent?.endsWith('.ts') &&
    (specifier.startsWith('./') || specifier.startsWith('../')) &&
    specifier.endsWith('.js')
  ) {
    const asTs = new URL(specifier.slice(0, -3) + '.ts', parent);
    if (existsSync(fileURLToPath(asTs))) return { url: asTs.href, shortCircuit: true };
  }
  return next(specifier, context);
}

/** @param {string} url @param {object} context @param {Function} next */
export async function load(url, context, next) {
  if (!url.startsWith('file:') || !url.endsWith('.ts')) return next(url, context);
  ts ??= (await import('typescript')).default;
  const source = await readFile(fileURLToPath(url), 'utf8');
  const { outputText } = ts.transpileModule(source, {
    fileName: fileURLToPath(url),
    compilerOptions: {
      module: ts.ModuleKind.ESNext,
      target: ts.ScriptTarget.ES2022,
      verbatimModuleSyntax: false,
      sourceMap: false,
    },
  });
  return { format: 'module', source: outputText, shortCircuit: true };
}
