/**
 * Where the DOM clone of a terminal snapshot goes (SPEC §8, §12): warm
 * captures of the demo's `terminal` widget under a Chromium trace with stacks
 * for style and layout updates, and the page's CPU profile, both mapped back
 * to their sources through the build's `.map` files.
 *
 *   node bench/snapshotProfile.mjs [captures] [widgetId]   (default 5, terminal)
 *
 * Prints, for the page's main thread inside the captures: trace time by event
 * (style recalcs, layouts, GC …), the forced style/layout updates by the JS
 * function that forced them, the CPU profile's self and total time by
 * function, and per layer (`layer.clone` … `layer.cloned`) the wall time and
 * the elements its clone holds (the `snapdom.cloned` mark's detail).
 * `PROFILE_OUT=dir` also writes the trace and the profile there; `PROFILE_LAYER=name` adds the CPU tables of the
 * clones of the layers whose name (test id, else tag.classes) holds `name`.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { sourceMapped } from './lib/cpuProfile.mjs';
import { importHarness } from './lib/typescript.mjs';
import { openTerminal } from './lib/tradescript.mjs';

const captures = Number(process.argv[2] ?? 5);
const widgetId = process.argv[3] ?? 'terminal';
const out = process.env.PROFILE_OUT;
/** `PROFILE_LAYER=name`: also the CPU tables of the clones of the layers whose name holds it. */
const only = process.env.PROFILE_LAYER;
const CATEGORIES = [
  'devtools.timeline',
  'disabled-by-default-devtools.timeline',
  'disabled-by-default-devtools.timeline.stack',
  'blink.user_timing',
  'v8',
  'v8.execute',
];
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
const h = await importHarness();
const where = await sourceMapped(join(h.repoRoot, 'dist/demo/assets'));

/** Traces `body` through the browser's CDP session, keeping as much as the buffer holds. */
async function traced(browser, body) {
  const cdp = await browser.newBrowserCDPSession();
  const events = [];
  cdp.on('Tracing.dataCollected', (e) => events.push(...e.value));
  const done = new Promise((resolve) => cdp.once('Tracing.tracingComplete', resolve));
  await cdp.send('Tracing.start', {
    transferMode: 'ReportEvents',
    traceConfig: { recordMode: 'recordAsMuchAsPossible', includedCategories: CATEGORIES },
  });
  await body();
  await cdp.send('Tracing.end');
  await done;
  return events;
}

const browser = await h.launchBrowser();
const terminal = await openTerminal(h, browser, 'stdio', { viewport: { width: 1280, height: 720 } });
const capture = () =>
  terminal.callTool('tradescript_snapshot', { sessionId: terminal.sessionId, target: { scope: 'widget', widgetId } });
try {
  await sleep(1500);
  for (let i = 0; i < 3; i++) await capture();
  await terminal.page.evaluate(() => Object.assign(globalThis, { __tradescriptPhaseMarks: true }));
  const cdp = await terminal.page.context().newCDPSession(terminal.page);
  await cdp.send('Profiler.enable');
  await cdp.send('Profiler.setSamplingInterval', { interval: 100 });
  let profile;
  const events = await traced(browser, async () => {
    await cdp.send('Profiler.start');
    for (let i = 0; i < captures; i++) {
      await sleep(500);
      await capture();
    }
    ({ profile } = await cdp.send('Profiler.stop'));
  });
  const details = await terminal.page.evaluate(() =>
    performance
      .getEntriesByType('mark')
      .filter((m) => m.name === 'ts:layer.clone' || m.name === 'ts:snapdom.cloned')
      .map((m) => ({ name: m.name.slice(3), detail: /** @type {PerformanceMark} */ (m).detail })),
  );
  if (out) {
    writeFileSync(join(out, 'snapshot.trace.json'), JSON.stringify(events));
    writeFileSync(join(out, 'snapshot.cpuprofile'), JSON.stringify(profile));
  }
  report(events, profile, details);
} finally {
  await terminal.close();
  await h.closeAll();
}

/** The page's main thread: the CrRendererMain that recorded the capture marks. */
function mainThread(events) {
  const mark = events.find((e) => e.name === 'ts:page.capture');
  if (!mark) throw new Error('no ts:page.capture mark in the trace');
  return { pid: mark.pid, tid: mark.tid };
}

/** [start, end] (trace µs) of each pair of marks `from` … `to` on the thread. */
function windows(events, thread, from, to) {
  const marks = events
    .filter((e) => e.pid === thread.pid && (e.name === `ts:${from}` || e.name === `ts:${to}`))
    .sort((a, b) => a.ts - b.ts);
  const out = [];
  let open = null;
  for (const m of marks) {
    if (m.name === `ts:${from}`) {
      open = m.ts;
    } else if (open !== null) {
      out.push([open, m.ts]);
      open = null;
    }
  }
  return out;
}

/** Complete events of the thread (B/E pairs folded into X). */
function completeEvents(events, thread) {
  const mine = events.filter((e) => e.pid === thread.pid && e.tid === thread.tid).sort((a, b) => a.ts - b.ts);
  const stack = [];
  const out = [];
  for (const e of mine) {
    if (e.ph === 'X') out.push(e);
    else if (e.ph === 'B') stack.push(e);
    else if (e.ph === 'E') {
      const begin = stack.pop();
      if (begin) out.push({ ...begin, ph: 'X', dur: e.ts - begin.ts, args: { ...begin.args, end: e.args } });
    }
  }
  return out;
}

function inside(ranges, ts) {
  return ranges.some(([a, b]) => ts >= a && ts <= b);
}

function frameKey(frame) {
  const mapped = where({
    functionName: frame.functionName,
    url: frame.url,
    lineNumber: frame.lineNumber - 1,
    columnNumber: frame.columnNumber - 1,
  });
  return mapped.key;
}

function table(title, rows, unit = 'ms') {
  console.log(`\n${title}`);
  for (const [key, ...values] of rows) {
    console.log(`  ${values.map((v) => (typeof v === 'number' ? v.toFixed(1) : v).padStart(8)).join(' ')}  ${key}`);
  }
  if (unit) console.log(`  (${unit})`);
}

function report(events, cpu, elements) {
  const thread = mainThread(events);
  const caps = windows(events, thread, 'page.capture', 'page.bitmap');
  const layers = windows(events, thread, 'layer.clone', 'layer.cloned');
  const n = caps.length;
  console.log(`${n} captures, mean wall ${(caps.reduce((s, [a, b]) => s + b - a, 0) / n / 1000).toFixed(1)} ms`);
  const xs = completeEvents(events, thread).filter((e) => inside(caps, e.ts));
  const byName = new Map();
  for (const e of xs) {
    const row = byName.get(e.name) ?? { ms: 0, count: 0 };
    row.ms += (e.dur ?? 0) / 1000;
    row.count++;
    byName.set(e.name, row);
  }
  table(
    'trace events per capture (inclusive ms, count)',
    [...byName]
      .sort((a, b) => b[1].ms - a[1].ms)
      .slice(0, 25)
      .map(([k, r]) => [k, r.ms / n, r.count / n]),
  );
  forced(xs, n, layers);
  console.log('\n== CPU inside the whole captures ==');
  cpuTables(cpu, caps, n);
  console.log('\n== CPU inside the layer clones (layer.clone … layer.cloned) ==');
  cpuTables(cpu, layers, n);
  if (only) {
    const names = elements.filter((m) => m.name === 'layer.clone').map((m) => m.detail.layer);
    console.log(`\n== CPU inside the clones of layers named ${only} ==`);
    cpuTables(
      cpu,
      layers.filter((_, i) => names[i]?.includes(only)),
      n,
    );
  }
  console.log('\n== CPU inside the layer decodes (layer.decode … layer.decoded) ==');
  cpuTables(cpu, windows(events, thread, 'layer.decode', 'layer.decoded'), n);
  layerTable(layers, elements, n);
}

/**
 * Per layer (by name, in plan order): mean ms from `layer.clone` to
 * `layer.cloned`, shells it holds, elements in its clone (absent when
 * snapdom's memo answered without cloning).
 */
function layerTable(layers, marks, n) {
  const rows = new Map();
  let current = null;
  let index = 0;
  for (const mark of marks) {
    if (mark.name === 'layer.clone') {
      const [a, b] = layers[index++] ?? [NaN, NaN];
      current = rows.get(mark.detail.layer) ?? { ms: 0, shells: mark.detail.shells, elements: 0, clones: 0, seen: 0 };
      current.ms += (b - a) / 1000;
      current.seen++;
      rows.set(mark.detail.layer, current);
    } else if (current) {
      current.elements += mark.detail?.elements ?? 0;
      current.clones++;
    }
  }
  table(
    'layers (clone ms per capture, shells, elements per clone, clones per capture)',
    [...rows].map(([name, r]) => [name, r.ms / n, r.shells, r.clones ? r.elements / r.clones : 0, r.clones / n]),
    '',
  );
}

/** Style and layout updates with a JS stack (forced), by the function that forced them. */
function forced(xs, n, layers) {
  const byFrame = new Map();
  let total = { ms: 0, count: 0 };
  let inLayers = { ms: 0, count: 0 };
  for (const e of xs) {
    if (e.name !== 'UpdateLayoutTree' && e.name !== 'Layout') continue;
    const stack = e.args?.beginData?.stackTrace;
    const key = stack?.length ? `${e.name} ← ${frameKey(stack[0])}` : `${e.name} (no stack: lifecycle)`;
    const row = byFrame.get(key) ?? { ms: 0, count: 0, elements: 0 };
    row.ms += e.dur / 1000;
    row.count++;
    row.elements += e.args?.elementCount ?? e.args?.beginData?.dirtyObjects ?? 0;
    byFrame.set(key, row);
    total = { ms: total.ms + e.dur / 1000, count: total.count + 1 };
    if (inside(layers, e.ts)) inLayers = { ms: inLayers.ms + e.dur / 1000, count: inLayers.count + 1 };
  }
  console.log(
    `\nstyle/layout updates per capture: ${(total.count / n).toFixed(0)} (${(total.ms / n).toFixed(1)} ms); inside layer clones ${(inLayers.count / n).toFixed(0)} (${(inLayers.ms / n).toFixed(1)} ms)`,
  );
  table(
    'style/layout updates by the function that forced them (ms, count, elements or dirty objects per capture)',
    [...byFrame]
      .sort((a, b) => b[1].ms - a[1].ms)
      .slice(0, 30)
      .map(([k, r]) => [k, r.ms / n, r.count / n, r.elements / n]),
  );
}

/** Self and total CPU time by function, from samples inside the captures. */
function cpuTables(cpu, caps, n) {
  const nodes = new Map(cpu.nodes.map((node) => [node.id, node]));
  const parent = new Map();
  for (const node of cpu.nodes) for (const child of node.children ?? []) parent.set(child, node.id);
  const keyOf = new Map();
  const key = (id) => {
    if (!keyOf.has(id)) keyOf.set(id, where(nodes.get(id).callFrame));
    return keyOf.get(id);
  };
  const self = new Map();
  const total = new Map();
  const place = new Map();
  let t = cpu.startTime;
  for (let i = 0; i < cpu.samples.length; i++) {
    t += cpu.timeDeltas[i];
    const dt = (cpu.timeDeltas[i + 1] ?? 0) / 1000;
    if (!inside(caps, t)) continue;
    const id = cpu.samples[i];
    const k = key(id);
    self.set(k.key, (self.get(k.key) ?? 0) + dt);
    place.set(k.place, (place.get(k.place) ?? 0) + dt);
    const seen = new Set();
    for (let at = id; at !== undefined; at = parent.get(at)) {
      const name = key(at).key;
      if (seen.has(name)) continue;
      seen.add(name);
      total.set(name, (total.get(name) ?? 0) + dt);
    }
  }
  const rows = (map, top) =>
    [...map]
      .sort((a, b) => b[1] - a[1])
      .slice(0, top)
      .map(([k, ms]) => [k, ms / n]);
  table('CPU self time per capture by place', rows(place, 15));
  table('CPU self time per capture by function', rows(self, 40));
  table('CPU total time per capture by function', rows(total, 50));
}
