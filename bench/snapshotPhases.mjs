/**
 * Where one `tradescript_snapshot` of the demo's terminal widget spends its
 * time, phase by phase (SPEC §8, §12): the bench's client calls the tool over
 * stdio, and the `ts:` performance marks a build carries (page and worker) are
 * read back after each capture and placed on one clock with the client's.
 * `node bench/snapshotPhases.mjs [captures] [widgetId]` (default 6, terminal);
 * the first capture is the cold one, the rest are summarized (median per phase); with `PHASES_COMPARE_BIN`, another
 * build's demo is captured in turns with this one's (the first capture of each build is its cold one; the order within a
 * round flips every round, and each run's warm wall per round is printed with the rounds it was lower in). The build marks its phases
 * (`src/sdk/phaseMark.ts`) once this sets `__tradescriptPhaseMarks` in the page and the bridge worker; a long
 * task ('longtask' observer, over 50 ms) is printed with the marks it holds. `PHASES_VERBOSE=1` prints every
 * mark of every capture. Timestamps of page, worker and this process are placed on one clock (timeOrigin).
 */
import { importHarness } from './lib/typescript.mjs';
import { openTerminal, setDemoMarket } from './lib/tradescript.mjs';

const captures = Number(process.argv[2] ?? 6);
const widgetId = process.argv[3] ?? 'terminal';
/**
 * For experiment builds: variants taken in turns, each an object set as `globalThis.__tsx` in page and worker
 * before its captures (`PHASES_VARIANTS='{"off":{},"on":{"flag":true}}'`), summarized apart.
 */
const variants = Object.entries(JSON.parse(process.env.PHASES_VARIANTS ?? '{"build":{}}'));
/**
 * Another build's CLI (`PHASES_COMPARE_BIN=/other/dist/node/server/bin.js`): its demo in a second tab, captured
 * in turns with this build's (before and after in one run, so load from other processes falls on both alike).
 */
const compareBin = process.env.PHASES_COMPARE_BIN || null;
const verbose = process.env.PHASES_VERBOSE === '1';
/** `PHASES_MARKET=paused`: every demo's market stopped before the captures (what a capture costs when nothing changes). */
const paused = process.env.PHASES_MARKET === 'paused';
const summaries = [];
const h = await importHarness();

/** Per-phase durations of one capture (ms), from its marks; a phase whose marks are missing is NaN. */
function summarize(marks, t0, t1) {
  const at = (name) => marks.find((m) => m.name === name)?.at ?? NaN;
  const sums = { clone: 0, decode: 0 };
  let open = NaN;
  for (const m of marks) {
    if (m.name === 'layer.clone' || m.name === 'layer.decode') open = m.at;
    else if (m.name === 'layer.cloned') sums.clone += m.at - open;
    else if (m.name === 'layer.decoded') sums.decode += m.at - open;
  }
  return {
    wall: t1 - t0,
    toWorker: at('worker.request') - t0,
    toPage: at('page.capture') - at('worker.request'),
    survey: at('page.planned') - at('page.capture'),
    layers: marks.filter((m) => m.name === 'layer.clone').length,
    redrawn: marks.filter((m) => m.name === 'layer.decode').length,
    clone: sums.clone,
    decode: sums.decode,
    layersTotal: at('page.composited') - at('page.planned'),
    bitmap: at('page.bitmap') - at('page.composited'),
    toWorkerBitmap: at('worker.captured') - at('page.bitmap'),
    scale: at('worker.scaled') - at('worker.captured'),
    encode: at('worker.encoded') - at('worker.scaled'),
    base64: at('worker.base64') - at('worker.encoded'),
    toClient: t1 - at('worker.base64'),
  };
}
const browser = await h.launchBrowser();
const viewport = { width: 1280, height: 720 };
const builds = [['build', await openTerminal(h, browser, 'stdio', { viewport })]];
if (compareBin) builds.push(['compare', await openTerminal(h, browser, 'stdio', { viewport, bin: compareBin })]);
/** Every build with every variant, taken in turns: [label, flags, terminal]. */
const runs = builds.flatMap(([build, terminal]) =>
  variants.map(([variant, flags]) => [compareBin ? `${build}:${variant}` : variant, flags, terminal]),
);

const marksOf = (target) =>
  target.evaluate(() =>
    performance
      .getEntriesByType('mark')
      .filter((m) => m.name.startsWith('ts:'))
      .map((m) => ({ name: m.name.slice(3), at: performance.timeOrigin + m.startTime, detail: m.detail ?? undefined })),
  );
const clear = (target) => target.evaluate(() => performance.clearMarks());

try {
  for (const [, terminal] of builds) {
    if (paused) await setDemoMarket(terminal.page, false);
    await terminal.page.evaluate(() => {
      const w = /** @type {any} */ (window);
      w.__phaseLongTasks = [];
      new PerformanceObserver((list) => {
        for (const e of list.getEntries()) w.__phaseLongTasks.push({ start: e.startTime, duration: e.duration });
      }).observe({ type: 'longtask' });
    });
  }
  await new Promise((resolve) => setTimeout(resolve, 1500));
  const cold = new Set();
  for (let i = 0; i < captures; i++) {
    // Rounds of one capture per run; the order within a round flips every round, so neither takes the first slot always.
    const round = Math.floor(i / runs.length);
    const slot = i % runs.length;
    const [variant, flags, terminal] = runs[round % 2 === 0 ? slot : runs.length - 1 - slot];
    const first = !cold.has(terminal);
    cold.add(terminal);
    const worker = terminal.page.workers()[0];
    const set = (f) => Object.assign(globalThis, { __tradescriptPhaseMarks: true, __tsx: f });
    await terminal.page.evaluate(set, flags);
    if (worker) await worker.evaluate(set, flags);
    await clear(terminal.page);
    if (worker) await clear(worker);
    await new Promise((resolve) => setTimeout(resolve, 700));
    const t0 = performance.timeOrigin + performance.now();
    const result = await terminal.callTool('tradescript_snapshot', {
      sessionId: terminal.sessionId,
      target: { scope: 'widget', widgetId },
    });
    const t1 = performance.timeOrigin + performance.now();
    const image = result.content.find((c) => c.type === 'image');
    const marks = [
      ...(await marksOf(terminal.page)).map((m) => ({ ...m, where: 'page' })),
      ...(worker ? await marksOf(worker) : []).map((m) => ({ ...m, where: 'worker' })),
    ].sort((a, b) => a.at - b.at);
    summaries.push({ variant, first, round, ...summarize(marks, t0, t1) });
    await new Promise((resolve) => setTimeout(resolve, 100));
    const long = await terminal.page.evaluate(() => {
      const w = /** @type {any} */ (window);
      const list = w.__phaseLongTasks.map((t) => ({ at: performance.timeOrigin + t.start, duration: t.duration }));
      w.__phaseLongTasks = [];
      return list;
    });
    for (const task of long.filter((t) => t.at >= t0 - 5 && t.at <= t1)) {
      const inside = marks.filter((m) => m.where === 'page' && m.at >= task.at && m.at <= task.at + task.duration);
      const before = marks.filter((m) => m.where === 'page' && m.at < task.at).pop();
      console.log(
        `capture ${i} ${variant}: long task ${task.duration.toFixed(0)} ms at ${(task.at - t0).toFixed(0)}: after ${before?.name ?? '-'}, holds ${inside.map((m) => m.name).join(' ') || 'no mark'}`,
      );
    }
    if (!verbose) continue;
    console.log(
      `\ncapture ${i} (${first ? 'cold' : 'warm'}): wall ${(t1 - t0).toFixed(1)} ms, ${image?.data.length} b64 chars`,
    );
    let last = t0;
    for (const m of marks) {
      console.log(
        `  ${(m.at - t0).toFixed(1).padStart(7)}  +${(m.at - last).toFixed(1).padStart(6)}  ${m.where.padEnd(6)} ${m.name}` +
          (m.detail === undefined ? '' : ` ${JSON.stringify(m.detail)}`),
      );
      last = m.at;
    }
    console.log(`  ${(t1 - t0).toFixed(1).padStart(7)}  +${(t1 - last).toFixed(1).padStart(6)}  client result`);
  }
  for (const summary of summaries.filter((s) => s.first)) console.log(`cold: ${JSON.stringify(summary)}`);
  for (const [variant] of runs) {
    const warm = summaries.filter((s) => !s.first && s.variant === variant);
    console.log(`${variant}: warm medians of ${warm.length}:`);
    for (const key of Object.keys(summaries[0]).filter((k) => !['variant', 'first', 'round'].includes(k))) {
      const values = warm.map((s) => s[key] ?? 0).sort((a, b) => a - b);
      console.log(
        `  ${key.padEnd(22)} ${values[Math.floor(values.length / 2)].toFixed(1).padStart(7)}   [${values.map((v) => v.toFixed(0)).join(' ')}]`,
      );
    }
  }
  printRounds(
    summaries,
    runs.map(([label]) => label),
  );
} finally {
  for (const [, terminal] of builds) await terminal.close();
  await h.closeAll();
}

/**
 * With two runs or more (builds or variants): each run's warm wall per round, and, for every run against the
 * first, in how many rounds it was lower and the median of its wall over the first's, round by round.
 */
function printRounds(all, labels) {
  if (labels.length < 2) return;
  const wallOf = (label, round) => all.find((s) => s.variant === label && s.round === round && !s.first)?.wall;
  const rounds = [...new Set(all.map((s) => s.round))].filter((r) => labels.every((l) => wallOf(l, r) !== undefined));
  console.log(`warm wall per round (ms), ${rounds.length} rounds with every run warm, order flipping each round:`);
  for (const label of labels)
    console.log(`  ${label.padEnd(22)} ${rounds.map((r) => wallOf(label, r).toFixed(0)).join(' ')}`);
  const [first, ...others] = labels;
  for (const label of others) {
    const ratios = rounds.map((r) => wallOf(label, r) / wallOf(first, r)).sort((a, b) => a - b);
    const lower = ratios.filter((x) => x < 1).length;
    const median = ratios.length ? ratios[Math.floor(ratios.length / 2)].toFixed(3) : '-';
    console.log(
      `  ${label} vs ${first}: lower in ${lower} of ${rounds.length} rounds, paired median wall ratio ${median}`,
    );
  }
}
