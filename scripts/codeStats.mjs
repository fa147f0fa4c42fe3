#!/usr/bin/env node
/**
 * File-size and function-size figures for a source tree, measured the same way
 * before and after a change (issue 12's closing note reports both).
 *
 *   node scripts/codeStats.mjs [root=src] [--json]
 *
 * Files: every `.ts` file under `root` that is not a `*.test.ts`; its size is its
 * line count (the number of `\n`-separated lines, blank and comment lines
 * included, as `wc -l` counts them plus a last line without a newline).
 * Functions: every function-like node with a body that the TypeScript compiler
 * parses in those files (function declarations and expressions, arrow functions,
 * methods, constructors, get and set accessors), nested ones counted on their
 * own; a function's size is the lines from its first token to its last,
 * inclusive, so a one-line arrow is 1.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import ts from 'typescript';

const args = process.argv.slice(2);
const asJson = args.includes('--json');
const root = args.find((arg) => !arg.startsWith('--')) ?? 'src';

/** Every non-test `.ts` file below `dir`. */
function sourceFiles(dir) {
  const found = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) found.push(...sourceFiles(path));
    else if (entry.name.endsWith('.ts') && !entry.name.endsWith('.test.ts') && !entry.name.endsWith('.d.ts')) {
      found.push(path);
    }
  }
  return found;
}

/** Line counts of every function-like node with a body in one file. */
function functionSizes(path, text) {
  const source = ts.createSourceFile(path, text, ts.ScriptTarget.Latest, true, ts.ScriptKind.TS);
  const sizes = [];
  const visit = (node) => {
    if (ts.isFunctionLike(node) && 'body' in node && node.body) {
      const start = source.getLineAndCharacterOfPosition(node.getStart(source)).line;
      const end = source.getLineAndCharacterOfPosition(node.getEnd()).line;
      sizes.push(end - start + 1);
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return sizes;
}

/** The median of a list of numbers (the mean of the middle two for an even count). */
function median(values) {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  if (sorted.length === 0) return 0;
  return sorted.length % 2 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
}

const files = sourceFiles(root).sort();
const fileLines = [];
const functionLines = [];
let largest = [];
for (const path of files) {
  const text = readFileSync(path, 'utf8');
  const lines = text.endsWith('\n') ? text.split('\n').length - 1 : text.split('\n').length;
  fileLines.push(lines);
  largest.push({ path: relative('.', path), lines });
  functionLines.push(...functionSizes(path, text));
}
largest = largest.sort((a, b) => b.lines - a.lines).slice(0, 10);
const stats = {
  root,
  files: files.length,
  fileLinesMedian: median(fileLines),
  fileLinesTotal: fileLines.reduce((sum, n) => sum + n, 0),
  filesOver300: fileLines.filter((n) => n > 300).length,
  functions: functionLines.length,
  functionLinesMedian: median(functionLines),
  functionsOver40: functionLines.filter((n) => n > 40).length,
  largestFiles: largest,
};
if (asJson) process.stdout.write(`${JSON.stringify(stats, null, 2)}\n`);
else {
  process.stdout.write(
    [
      `${stats.root}: ${stats.files} non-test .ts files, ${stats.fileLinesTotal} lines, median ${stats.fileLinesMedian} lines a file, ${stats.filesOver300} over 300`,
      `${stats.functions} functions, median ${stats.functionLinesMedian} lines a function, ${stats.functionsOver40} over 40`,
      `largest: ${stats.largestFiles.map((file) => `${file.path} ${file.lines}`).join(', ')}`,
    ].join('\n') + '\n',
  );
}
