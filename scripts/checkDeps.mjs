#!/usr/bin/env node
/**
 * What each folder of src/ may import (STYLE 6, issue 12), like Playwright's
 * DEPS.list: `src/DEPS.list` names, per folder, the folders of ours and the
 * packages its files may import. Run by `npm run lint`; exits 1 and names every
 * import no entry allows.
 *
 *   node scripts/checkDeps.mjs            check
 *   node scripts/checkDeps.mjs --observed print the folder graph as it is (to write or review the list)
 *   node scripts/checkDeps.mjs --src DIR  check another tree (its DIR/DEPS.list), as the tests do
 *
 * The list, one folder a line: `FOLDER: ALLOWED ALLOWED …`, `#` starts a comment.
 * FOLDER is a folder under src/ (`sdk/dispatch`); a folder without a line of its
 * own follows its parent's. An ALLOWED entry is a folder of ours (`protocol`:
 * that folder only; `protocol/**`: it and every folder below it) or a package
 * (`zod/mini`, `node:*` for every Node built-in, `@scope/*`). A file may always
 * import its own folder. Tests (`*.test.ts`) and test support (`testing/`
 * folders) are not held to the list, but nothing else may import test support.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, posix } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

const root = fileURLToPath(new URL('..', import.meta.url));
const at = process.argv.indexOf('--src');
const src = at > 0 ? process.argv[at + 1] : join(root, 'src');
const LIST = join(src, 'DEPS.list');

const isTestSupport = (file) => /(^|\/)testing\//.test(file);
const isTest = (file) => file.endsWith('.test.ts');

/** Every .ts file under src/, as a path relative to src/. */
function sources() {
  return readdirSync(src, { recursive: true, encoding: 'utf8' })
    .filter((file) => file.endsWith('.ts'))
    .map((file) => file.split('\\').join('/'));
}

/** What one file imports: `{ folder }` for ours (relative to src/), `{ pkg }` for a package. */
function importsOf(file) {
  const text = readFileSync(join(src, file), 'utf8');
  const found = [];
  // The compiler's own scan: imports, exports from, dynamic import(), no matter what strings or comments say.
  for (const { fileName: spec } of ts.preProcessFile(text, true, true).importedFiles) {
    if (spec.startsWith('.')) {
      const target = posix.normalize(posix.join(posix.dirname(file), spec));
      if (target.startsWith('..')) found.push({ spec, outside: target });
      else found.push({ spec, folder: posix.dirname(target), target });
    } else {
      const pkg = spec.startsWith('node:') ? 'node:*' : spec;
      found.push({ spec, pkg });
    }
  }
  return found;
}

function readList() {
  const rules = new Map();
  for (const raw of readFileSync(LIST, 'utf8').split('\n')) {
    const line = raw.replace(/#.*/, '').trim();
    if (!line) continue;
    const colon = line.indexOf(':');
    const folder = line.slice(0, colon).trim();
    rules.set(
      folder,
      line
        .slice(colon + 1)
        .trim()
        .split(/\s+/)
        .filter(Boolean),
    );
  }
  return rules;
}

function rulesFor(rules, folder) {
  for (let at = folder; ; at = posix.dirname(at)) {
    if (rules.has(at)) return rules.get(at);
    if (at === '.' || at === '') return null;
  }
}

function allows(entries, folder, found) {
  if (found.folder === folder) return true;
  for (const entry of entries) {
    if (found.pkg !== undefined) {
      if (entry === found.pkg) return true;
      if (entry.endsWith('/*') && found.pkg.startsWith(entry.slice(0, -1))) return true;
      if (!entry.includes('/') && found.pkg.startsWith(`${entry}/`)) return true;
      continue;
    }
    if (found.folder === undefined) continue;
    if (entry.endsWith('/**') && (found.folder === entry.slice(0, -3) || found.folder.startsWith(entry.slice(0, -2)))) {
      return true;
    }
    if (entry === found.folder) return true;
  }
  return false;
}

function check() {
  const rules = readList();
  const problems = [];
  for (const file of sources()) {
    const folder = posix.dirname(file);
    const exempt = isTest(file) || isTestSupport(file);
    for (const found of importsOf(file)) {
      if (found.outside) {
        if (!exempt) problems.push(`${file}: ${found.spec} reaches outside src/`);
        continue;
      }
      if (found.target && isTestSupport(found.target) && !exempt) {
        problems.push(`${file}: ${found.spec} is test support, which only tests and other test support may import`);
        continue;
      }
      if (exempt) continue;
      const entries = rulesFor(rules, folder);
      if (entries === null) problems.push(`${file}: its folder ${folder} has no line in src/DEPS.list`);
      else if (!allows(entries, folder, found)) {
        problems.push(
          `${file}: ${found.spec} (${found.folder ?? found.pkg}) is not in ${folder}'s line of src/DEPS.list`,
        );
      }
    }
  }
  if (problems.length > 0) {
    console.error(`checkDeps: ${problems.length} imports break src/DEPS.list:\n  ${problems.join('\n  ')}`);
    process.exit(1);
  }
  console.log(`checkDeps: ${sources().length} files follow src/DEPS.list`);
}

function observed() {
  const graph = new Map();
  for (const file of sources()) {
    if (isTest(file) || isTestSupport(file)) continue;
    const folder = posix.dirname(file);
    const set = graph.get(folder) ?? new Set();
    for (const found of importsOf(file)) {
      const name = found.folder ?? found.pkg ?? found.outside;
      if (name !== folder) set.add(name);
    }
    graph.set(folder, set);
  }
  for (const [folder, set] of [...graph].sort()) console.log(`${folder}: ${[...set].sort().join(' ')}`);
}

if (process.argv.includes('--observed')) observed();
else check();
