/**
 * SPEC §13: the MCP conformance suite passes every scenario that applies, for
 * both revisions. Scenarios about our own surface run against the real CLI;
 * scenarios that call the suite's fixed test tools run against the fixture
 * server (the same built server with those tools next to ours,
 * e2e/conformance/fixtureTools.mjs). What does not apply, and why, is listed
 * in e2e/conformance/notApplicable.json; the table is printed.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { repoRoot, startServer, type ServerHandle } from './harness/index.js';
import {
  judge,
  readNotApplicable,
  REVISIONS,
  runSuite,
  verdictTable,
  type Revision,
  type SuiteResults,
  type Verdict,
} from './conformance/runConformance.js';

/** Scenarios that call the suite's fixed test tools, resources or prompt: run against the fixture. */
const FIXTURE_SCENARIOS = new Set([
  'tools-call-simple-text',
  'tools-call-image',
  'tools-call-error',
  'tools-call-with-progress',
  'resources-read-text',
  'resources-templates-read',
  'resources-subscribe',
  'resources-unsubscribe',
  'prompts-get-simple',
]);

const notApplicable = readNotApplicable();
const out = mkdtempSync(join(tmpdir(), 'tsmcp-conformance-'));
const results = new Map<Revision, { product: SuiteResults; fixture: SuiteResults }>();
const verdicts: Verdict[] = [];
let product: ServerHandle;
let fixture: ServerHandle;

beforeAll(async () => {
  product = await startServer(['serve', '--http', '127.0.0.1:0', '--log-level', 'warn']);
  fixture = await startServer(['serve', '--http', '127.0.0.1:0', '--log-level', 'warn'], {
    bin: join(repoRoot, 'e2e/conformance/fixtureServer.mjs'),
  });
});

afterAll(async () => {
  await product?.close();
  await fixture?.close();
  rmSync(out, { recursive: true, force: true });
  if (verdicts.length > 0) console.error(`\nMCP conformance (SPEC §13)\n${verdictTable(verdicts)}\n`);
});

describe('MCP conformance suite (SPEC §13)', () => {
  test.each(REVISIONS)('SPEC §13 every applicable server scenario passes at %s', async (revision) => {
    const [own, fixed] = await Promise.all([
      runSuite(product.ready.mcpUrl ?? '', revision, join(out, revision, 'product')),
      runSuite(fixture.ready.mcpUrl ?? '', revision, join(out, revision, 'fixture')),
    ]);
    results.set(revision, { product: own, fixture: fixed });
    const scenarios = [...new Set([...own.keys(), ...fixed.keys()])].sort();
    expect(scenarios.length).toBeGreaterThan(10);
    const mine = scenarios.map((scenario) =>
      judge(scenario, revision, (FIXTURE_SCENARIOS.has(scenario) ? fixed : own).get(scenario), notApplicable),
    );
    verdicts.push(...mine);
    expect(mine.filter((v) => v.result === 'FAIL')).toEqual([]);
    // The product lists only its own six tools: the fixture's never reach it.
    const listed = own.get('tools-list')?.find((c) => c.id === 'tools-list') as { details?: { tools?: string[] } };
    expect(listed?.details?.tools?.every((name) => name.startsWith('tradescript_'))).toBe(true);
    expect(listed?.details?.tools).toHaveLength(6);
  });

  test('the not-applicable list names only scenarios and checks the suite has', () => {
    expect(results.size).toBe(REVISIONS.length);
    const seen = new Map<string, Set<string>>();
    for (const { product: own, fixture: fixed } of results.values()) {
      for (const suite of [own, fixed]) {
        for (const [scenario, checks] of suite) {
          const ids = seen.get(scenario) ?? new Set<string>();
          for (const check of checks) ids.add(check.id);
          seen.set(scenario, ids);
        }
      }
    }
    expect(Object.keys(notApplicable.scenarios).filter((s) => !seen.has(s))).toEqual([]);
    for (const [scenario, checks] of Object.entries(notApplicable.checks)) {
      expect(
        Object.keys(checks).filter((id) => !seen.get(scenario)?.has(id)),
        scenario,
      ).toEqual([]);
    }
    for (const scenario of FIXTURE_SCENARIOS) expect(seen.has(scenario), scenario).toBe(true);
  });
});
