#!/usr/bin/env node
/**
 * `npm run build`: four steps, one line each with its duration.
 *
 * 1. node     `tsc -p tsconfig.server.json` (incremental) → dist/node; the bin is made executable.
 *    types    `tsc -p tsconfig.types.json` (incremental, declarations only) → dist/types, the
 *             typings of the browser entries (`tradescript-mcp`, `/element`, `/extension`).
 * 2. browser  `vite build` with the root vite.config.ts → dist/browser (SDK, bridge, element), then
 *             `--mode extension` for the extension entry (`tradescript-mcp/extension`) on its own.
 * 3. demo     `vite build -c demo/vite.config.ts` → dist/demo.
 * 4. extension `vite build -c extension/vite.config.ts`, then `-c extension/vite.content.config.ts`
 *    → dist/extension (unpacked MV3 extension: manifest, service worker, popup, content script).
 *
 * A failing step prints its output and fails the build (after the other steps
 * have run, so one run shows every problem). Both tsc runs are child processes alongside the Vite builds.
 */
import { spawn } from 'node:child_process';
import { chmodSync, existsSync, rmSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
process.chdir(root);

const NODE_OUT = 'dist/node';
const BIN = `${NODE_OUT}/server/bin.js`;
const TS_BUILD_INFO = 'dist/.tsbuildinfo-node';
const TYPES_OUT = 'dist/types';
const TYPES_BUILD_INFO = 'dist/.tsbuildinfo-types';
const DEMO_CONFIG = 'demo/vite.config.ts';
const EXTENSION_CONFIG = 'extension/vite.config.ts';
const EXTENSION_CONTENT_CONFIG = 'extension/vite.content.config.ts';

/**
 * @typedef {{ note: string } | { failed: string }} StepOutcome
 */

/** Prints one line for a finished step and returns whether it failed. */
function report({ name, seconds, outcome }) {
  const label = `build: ${name.padEnd(9)}`;
  const duration = `${seconds.toFixed(1).padStart(5)}s`;
  if ('failed' in outcome) {
    if (outcome.failed.trim()) console.error(outcome.failed.trimEnd());
    console.error(`${label} ${duration} FAILED`);
    return true;
  }
  console.log(`${label} ${duration} ${outcome.note}`);
  return false;
}

/** Step 1: server + protocol with incremental tsc. */
async function buildNode() {
  // Incremental tsc trusts its build info; without the outputs it would emit nothing.
  if (!existsSync(NODE_OUT)) rmSync(TS_BUILD_INFO, { force: true });
  const tsc = fileURLToPath(import.meta.resolve('typescript/bin/tsc'));
  const { code, output } = await run(process.execPath, [tsc, '-p', 'tsconfig.server.json', '--pretty', 'false']);
  if (code !== 0) return { failed: `${output}\ntsc -p tsconfig.server.json exited with ${code}` };
  chmodSync(BIN, 0o755);
  return { note: `${NODE_OUT}, bin ${BIN}` };
}

/** Step 1b: declarations of the browser entries, so a TypeScript consumer of the package gets types. */
async function buildTypes() {
  if (!existsSync(TYPES_OUT)) rmSync(TYPES_BUILD_INFO, { force: true });
  const tsc = fileURLToPath(import.meta.resolve('typescript/bin/tsc'));
  const { code, output } = await run(process.execPath, [tsc, '-p', 'tsconfig.types.json', '--pretty', 'false']);
  if (code !== 0) return { failed: `${output}\ntsc -p tsconfig.types.json exited with ${code}` };
  return { note: TYPES_OUT };
}

/** Step 2: the browser library; then the extension entry in its own pass. */
async function buildBrowser(vite) {
  const built = [];
  for (const mode of ['production', 'extension']) {
    const loaded = await vite.loadConfigFromFile({ command: 'build', mode }, 'vite.config.ts');
    if (!loaded) return { failed: 'vite.config.ts not found' };
    const lib = loaded.config.build?.lib;
    const entries = Object.keys((lib && typeof lib.entry === 'object' && !Array.isArray(lib.entry) && lib.entry) || {});
    await vite.build({ ...loaded.config, configFile: false, mode, logLevel: 'warn' });
    built.push(...entries);
  }
  return { note: `dist/browser (${built.join(', ')})` };
}

/** Step 3: the demo terminal. */
async function buildDemo(vite) {
  await vite.build({ configFile: DEMO_CONFIG, logLevel: 'warn' });
  return { note: 'dist/demo' };
}

/** Step 4: the Chrome extension (the content script is a classic script, built apart). */
async function buildExtension(vite) {
  await vite.build({ configFile: EXTENSION_CONFIG, logLevel: 'warn' });
  await vite.build({ configFile: EXTENSION_CONTENT_CONFIG, logLevel: 'warn' });
  return { note: 'dist/extension (load unpacked)' };
}

/** Runs a command, collecting stdout and stderr together. */
function run(command, args) {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (d) => (output += d));
    child.stderr.on('data', (d) => (output += d));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code: code ?? 1, output }));
  });
}

/** Runs one step, turning a throw into a failed outcome. */
async function step(name, body) {
  const startedAt = performance.now();
  /** @type {StepOutcome} */
  let outcome;
  try {
    outcome = await body();
  } catch (error) {
    outcome = { failed: error instanceof Error ? error.message || String(error.stack) : String(error) };
  }
  return { name, seconds: (performance.now() - startedAt) / 1000, outcome };
}

const startedAt = performance.now();
const node = step('node', buildNode);
const types = step('types', buildTypes);
const vite = await import('vite');
const browser = await step('browser', () => buildBrowser(vite));
const demo = await step('demo', () => buildDemo(vite));
const extension = await step('extension', () => buildExtension(vite));
// Reported in a fixed order once all are done: tsc runs alongside the Vite builds.
const failed = [await node, await types, browser, demo, extension].map(report).some(Boolean);
const total = ((performance.now() - startedAt) / 1000).toFixed(1);
if (failed) {
  console.error(`build: failed after ${total}s`);
  process.exit(1);
}
console.log(`build: done in ${total}s`);
