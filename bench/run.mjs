#!/usr/bin/env node
/**
 * `npm run bench [-- --quick] [-- --only calls,batch]`: the SPEC §12
 * performance tables. Builds nothing itself (the npm script builds first),
 * measures every target against anchors taken side by side in this run, prints
 * tables with PASS/MISS per target, and writes bench/results/<timestamp>.json.
 * Nothing here asserts a time: it reports. Run with `node --expose-gc`.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs, USAGE } from './lib/args.mjs';
import { machineInfo } from './lib/machine.mjs';
import { plan } from './lib/measure.mjs';
import { checkJson, renderChecks, renderTable } from './lib/report.mjs';
import { importHarness } from './lib/typescript.mjs';
import { TABLES } from './tables/index.mjs';

/**
 * @typedef {object} TableContext
 * @property {any} h the e2e harness
 * @property {import('playwright-core').Browser} browser one Chromium for the whole run
 * @property {ReturnType<typeof plan>} plan
 * @property {boolean} quick
 * @property {'turns' | 'sequential'} callsOrder table 1: paths taking turns (default) or one after another
 * @property {(what: string) => void} progress
 */

/**
 * What a table returns: a measured table, or why it cannot be measured yet.
 * @typedef {{ header: string[], rows: any[][], extra?: { header: string[], rows: any[][] }, checks: import('./lib/report.mjs').Check[], notes: string[], data: unknown }
 *   | { notMeasurable: string, data?: unknown }} TableResult
 */

const benchDir = dirname(fileURLToPath(import.meta.url));

let args;
try {
  args = parseArgs(
    process.argv.slice(2),
    TABLES.map((t) => t.id),
  );
} catch (error) {
  console.error(String(error instanceof Error ? error.message : error));
  process.exit(2);
}
if (args.help) {
  console.log(USAGE);
  process.exit(0);
}

const selected = TABLES.filter((t) => args.only === null || args.only.includes(t.id));
const startedAt = new Date();
const h = await importHarness();
const machine = machineInfo(h.chromiumPath());
const runPlan = plan(args.quick);

// The whole run is bounded: a stuck path must not hold the machine. Each table gets 8 minutes
// (--quick) or 15, twice that when a baseline build is measured beside this one.
const perTableMin = (args.quick ? 8 : 15) * (process.env.TRADESCRIPT_BENCH_BASELINE_BIN ? 2 : 1);
const deadlineMs = perTableMin * Math.max(1, selected.length) * 60_000;
const watchdog = setTimeout(() => {
  console.error(`bench: still running after ${deadlineMs / 60_000} min; closing everything and giving up.`);
  void h.closeAll().finally(() => process.exit(1));
}, deadlineMs);
watchdog.unref();

console.log(
  `tradescript-mcp bench${args.quick ? ' (--quick)' : ''}: ${machine.cores} cores, ${machine.cpuModel ?? 'unknown CPU'}, ` +
    `node ${machine.node}, ${machine.chromium ?? 'chromium ?'}; load ${machine.loadavg.join(' ')}`,
);

if (process.env.TRADESCRIPT_BENCH_BIN)
  console.log(`measuring TRADESCRIPT_BENCH_BIN=${process.env.TRADESCRIPT_BENCH_BIN}`);
if (process.env.TRADESCRIPT_BENCH_BASELINE_BIN)
  console.log(
    `side by side with TRADESCRIPT_BENCH_BASELINE_BIN=${process.env.TRADESCRIPT_BENCH_BASELINE_BIN} (rows "before:")`,
  );
const progress = progressPrinter();
/** @type {Record<string, unknown>} */
const results = {};
let browser;
try {
  browser = await h.launchBrowser();
  /** @type {TableContext} */
  const ctx = { h, browser, plan: runPlan, quick: args.quick, callsOrder: args.callsOrder, progress: progress.update };
  for (const table of selected) {
    const started = performance.now();
    progress.update(table.title);
    /** @type {TableResult} */
    let result;
    try {
      result = await table.run(ctx);
    } catch (error) {
      result = { notMeasurable: `failed: ${error instanceof Error ? error.message.split('\n')[0] : String(error)}` };
      if (process.env.BENCH_DEBUG) console.error(error);
    }
    progress.clear();
    const seconds = (performance.now() - started) / 1000;
    printTable(table, result, seconds);
    results[table.id] = toJson(table, result, seconds);
  }
} finally {
  progress.clear();
  await h.closeAll().catch((error) => console.error(`bench: cleanup: ${error.message}`));
}

const file = args.out ?? join(benchDir, 'results', `${startedAt.toISOString().replace(/[:.]/g, '-')}.json`);
mkdirSync(dirname(file), { recursive: true });
writeFileSync(
  file,
  `${JSON.stringify(
    {
      startedAt: startedAt.toISOString(),
      finishedAt: new Date().toISOString(),
      argv: process.argv.slice(2),
      quick: args.quick,
      serverBin: process.env.TRADESCRIPT_BENCH_BIN || h.serverBin,
      baselineBin: process.env.TRADESCRIPT_BENCH_BASELINE_BIN || null,
      machine: { ...machine, loadavgAtEnd: os.loadavg().map((l) => Math.round(l * 100) / 100) },
      plan: runPlan,
      tables: results,
    },
    null,
    2,
  )}\n`,
);
// A baseline build's checks are shown for comparison, not counted.
const checks = Object.values(results)
  .flatMap((r) => /** @type {any} */ (r).checks ?? [])
  .filter((c) => !c.baseline);
const count = (v) => checks.filter((c) => c.verdict === v).length;
console.log(
  `\n${count('PASS')} PASS, ${count('MISS')} MISS${count('n/a') ? `, ${count('n/a')} n/a` : ''} of ${checks.length} targets; ` +
    `${Object.values(results).filter((r) => /** @type {any} */ (r).status !== 'measured').length} table(s) not measurable.`,
);
console.log(`results: ${file}`);
clearTimeout(watchdog);
process.exit(0);

function printTable(table, result, seconds) {
  console.log(`\n${table.number}. ${table.title}  (${seconds.toFixed(0)} s)`);
  if ('notMeasurable' in result) {
    console.log(`   not yet measurable: ${result.notMeasurable}`);
    return;
  }
  console.log(renderTable(result.header, result.rows));
  if (result.extra) console.log(`\n${renderTable(result.extra.header, result.extra.rows)}`);
  const checks = renderChecks(result.checks);
  if (checks) console.log(`\n${checks}`);
  for (const note of result.notes) console.log(`  · ${note}`);
}

function toJson(table, result, seconds) {
  if ('notMeasurable' in result)
    return {
      title: table.title,
      status: 'not-measurable',
      why: result.notMeasurable,
      data: result.data ?? null,
      seconds,
    };
  return {
    title: table.title,
    status: 'measured',
    seconds,
    header: result.header,
    rows: result.rows,
    extra: result.extra ?? null,
    checks: result.checks.map(checkJson),
    notes: result.notes,
    data: result.data,
  };
}

/** One self-overwriting status line on a terminal; silent otherwise (CI logs stay tidy). */
function progressPrinter() {
  const tty = process.stderr.isTTY;
  let shown = false;
  return {
    update(what) {
      if (!tty) return;
      process.stderr.write(`\r\x1b[2K  … ${what}`.slice(0, process.stderr.columns ?? 120));
      shown = true;
    },
    clear() {
      if (tty && shown) process.stderr.write('\r\x1b[2K');
      shown = false;
    },
  };
}
