#!/usr/bin/env node
/**
 * `npm test` (after `npm run build`): `vitest run --project unit`, then
 * `vitest run --project e2e` (the second runs even when the first fails), each
 * with vitest's normal output. Then one final line, exactly
 * `N passed, N failed, N skipped`, which CI reads.
 *
 * Exits 1 when anything failed or when no test ran at all. A vitest run that exits
 * non-zero without a failing test in its counts (a crash, a config error, a
 * timeout in teardown) counts as one failure, so the line never reads clean when
 * the run was not.
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const vitest = join(root, 'node_modules/vitest/vitest.mjs');
const reporter = join(root, 'scripts/countReporter.mjs');
const projects = ['unit', 'e2e'];

/** @type {import('node:child_process').ChildProcess | undefined} */
let current;
for (const signal of /** @type {const} */ (['SIGINT', 'SIGTERM'])) {
  process.on(signal, () => {
    current?.kill(signal);
    process.exit(signal === 'SIGINT' ? 130 : 143);
  });
}

/** Runs one vitest project and returns its counts. */
async function runProject(project, countsDir) {
  const countsFile = join(countsDir, `${project}.json`);
  const args = [
    vitest,
    'run',
    '--project',
    project,
    '--passWithNoTests',
    '--reporter=default',
    `--reporter=${reporter}`,
  ];
  const code = await new Promise((resolve) => {
    current = spawn(process.execPath, args, {
      cwd: root,
      stdio: 'inherit',
      env: { ...process.env, TRADESCRIPT_TEST_COUNTS: countsFile },
    });
    current.on('error', (error) => {
      console.error(`test: could not start vitest: ${error.message}`);
      resolve(1);
    });
    current.on('close', (exitCode, signal) => resolve(exitCode ?? (signal ? 1 : 0)));
  });
  current = undefined;
  const counts = existsSync(countsFile)
    ? JSON.parse(readFileSync(countsFile, 'utf8'))
    : { files: 0, passed: 0, failed: 0, skipped: 0, reason: 'no report' };
  if (code !== 0 && counts.failed === 0) {
    console.error(
      `test: vitest --project ${project} exited with ${code} (${counts.reason}) without a failing test; counted as one failure`,
    );
    counts.failed = 1;
  }
  if (counts.files === 0 && code === 0) console.error(`test: project ${project} has no test files`);
  return counts;
}

const countsDir = mkdtempSync(join(tmpdir(), 'tradescript-test-'));
const total = { passed: 0, failed: 0, skipped: 0 };
try {
  for (const project of projects) {
    const counts = await runProject(project, countsDir);
    total.passed += counts.passed;
    total.failed += counts.failed;
    total.skipped += counts.skipped;
  }
} finally {
  rmSync(countsDir, { recursive: true, force: true });
}

if (total.passed + total.failed === 0) console.error('test: no test ran');
console.log(`${total.passed} passed, ${total.failed} failed, ${total.skipped} skipped`);
process.exit(total.failed > 0 || total.passed + total.failed === 0 ? 1 : 0);
