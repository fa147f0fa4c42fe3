/**
 * A vitest reporter that only counts, for scripts/test.mjs: at the end of a run it
 * writes `{files, passed, failed, skipped, reason}` as JSON to the file named by
 * `TRADESCRIPT_TEST_COUNTS`. It runs next to the default reporter, which prints.
 *
 * A failure that belongs to no test still counts as one failed: a test file that
 * could not be loaded, a failing `beforeAll`/`afterAll` (module or suite level), an
 * unhandled error. Skipped, todo and never-run tests count as skipped.
 */
import { writeFileSync } from 'node:fs';

/** Counts tests by outcome; see the module comment. */
export default class CountReporter {
  /**
   * @param {ReadonlyArray<import('vitest/node').TestModule>} testModules
   * @param {ReadonlyArray<unknown>} unhandledErrors
   * @param {string} reason
   */
  onTestRunEnd(testModules, unhandledErrors, reason) {
    const counts = { files: testModules.length, passed: 0, failed: unhandledErrors.length, skipped: 0, reason };
    for (const testModule of testModules) {
      if (testModule.errors().length > 0) counts.failed += 1;
      for (const suite of testModule.children.allSuites()) {
        if (suite.errors().length > 0) counts.failed += 1;
      }
      for (const test of testModule.children.allTests()) {
        const { state } = test.result();
        if (state === 'passed') counts.passed += 1;
        else if (state === 'failed') counts.failed += 1;
        else counts.skipped += 1;
      }
    }
    const file = process.env.TRADESCRIPT_TEST_COUNTS;
    if (file) writeFileSync(file, JSON.stringify(counts));
  }
}
