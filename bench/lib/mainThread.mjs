/**
 * What a page's main thread does while something runs: long tasks from an
 * in-page PerformanceObserver ('longtask', tasks over 50 ms), the longest task
 * of any length from a Chromium trace (RunTask on the page's CrRendererMain),
 * and main-thread busy time from CDP Performance metrics.
 */

/** Installs a 'longtask' observer in the page (idempotent). */
export async function observeLongTasks(page) {
  await page.evaluate(() => {
    const w = /** @type {any} */ (window);
    if (w.__benchLongTasks) return;
    w.__benchLongTasks = [];
    new PerformanceObserver((list) => {
      for (const e of list.getEntries()) w.__benchLongTasks.push({ start: e.startTime, duration: e.duration });
    }).observe({ type: 'longtask' });
  });
}

/** The page's clock now (performance.now), to bracket a measurement. */
export function pageNow(page) {
  return page.evaluate(() => performance.now());
}

/** The longest long task (ms) that started in [from, to] on the page's clock; 0 when none (none over 50 ms). */
export async function longestLongTask(page, from, to) {
  await new Promise((resolve) => setTimeout(resolve, 100)); // the observer reports asynchronously
  return page.evaluate(
    ([a, b]) =>
      /** @type {any} */ (window).__benchLongTasks
        .filter((t) => t.start >= a && t.start <= b)
        .reduce((max, t) => Math.max(max, t.duration), 0),
    [from, to],
  );
}

/**
 * Only top-level tasks: with the detailed devtools.timeline categories a long
 * capture fills the trace buffer and the task's own event, written when the
 * task ends, is the one that gets lost.
 */
const TRACE_CATEGORIES = ['toplevel'];
/** A top-level task's event name (older Chromium builds call it RunTask). */
const TASK_EVENT = 'ThreadControllerImpl::RunTask';

/**
 * Runs `body` under a Chromium trace and returns the longest main-thread task
 * (ms) of `page`'s renderer during it, with `body`'s value.
 * @template T
 * @param {import('playwright-core').Browser} browser
 * @param {import('playwright-core').Page} page
 * @param {() => Promise<T>} body
 * @returns {Promise<{ value: T, wallMs: number, longestTaskMs: number, tasksOver50: number }>}
 */
export async function traceLongestTask(browser, page, body) {
  const { value, wallMs, trace } = await traced(
    () => browser.startTracing(page, { categories: TRACE_CATEGORIES }),
    body,
    async () => JSON.parse((await browser.stopTracing()).toString('utf8')),
  );
  const { longestTaskMs, tasksOver50 } = longestRendererTask(trace, page.url());
  return { value, wallMs, longestTaskMs, tasksOver50 };
}

/**
 * `body` timed between `start()` and `stop()` (the trace's start and its
 * parsed end); `stop` runs even when `body` throws.
 * @template T
 * @param {() => Promise<unknown>} start
 * @param {() => Promise<T>} body
 * @param {() => Promise<any>} stop
 * @returns {Promise<{ value: T, wallMs: number, trace: any }>}
 */
async function traced(start, body, stop) {
  await start();
  let value;
  let wallMs = NaN;
  let trace;
  try {
    const t0 = performance.now();
    value = await body();
    wallMs = performance.now() - t0;
  } finally {
    trace = await stop();
  }
  return { value: /** @type {T} */ (value), wallMs, trace };
}

/**
 * {@link traceLongestTask} for a page Playwright has no `Browser` for (a
 * persistent context's, e.g. with an extension loaded): the trace runs through
 * the page's own CDP session (`Tracing` records the whole browser either way).
 * With only top-level tasks recorded the trace names no frame's renderer, and
 * such a profile runs more than one (the extension's, a blank first tab), so
 * the page leaves a user-timing mark at the start whose process is its own.
 * @template T
 * @param {import('playwright-core').CDPSession} session a CDP session of `page`
 * @param {import('playwright-core').Page} page
 * @param {() => Promise<T>} body
 * @returns {Promise<{ value: T, wallMs: number, longestTaskMs: number, tasksOver50: number }>}
 */
export async function traceLongestTaskOn(session, page, body) {
  const start = async () => {
    await session.send('Tracing.start', {
      categories: [...TRACE_CATEGORIES, 'blink.user_timing'].join(','),
      transferMode: 'ReturnAsStream',
    });
    await page.evaluate((name) => performance.mark(name), TRACE_MARK);
  };
  const stop = async () => {
    const complete = new Promise((resolve) => session.once('Tracing.tracingComplete', resolve));
    await session.send('Tracing.end');
    return JSON.parse(await readStream(session, /** @type {any} */ (await complete).stream));
  };
  const { value, wallMs, trace } = await traced(start, body, stop);
  const events = Array.isArray(trace) ? trace : (trace.traceEvents ?? []);
  const pid = events.find((e) => e.name === TRACE_MARK)?.pid;
  if (pid === undefined) throw new Error(`the trace holds no ${TRACE_MARK} mark of the page`);
  const { longestTaskMs, tasksOver50 } = longestRendererTask(events, page.url(), pid);
  return { value, wallMs, longestTaskMs, tasksOver50 };
}

/** The user-timing mark by which {@link traceLongestTaskOn} finds the page's renderer in the trace. */
const TRACE_MARK = 'tradescript-bench:trace';

/** A CDP `IO` stream read to its end, as text. */
async function readStream(session, handle) {
  const chunks = [];
  for (;;) {
    const { data, eof, base64Encoded } = await session.send('IO.read', { handle });
    chunks.push(base64Encoded ? Buffer.from(data, 'base64') : Buffer.from(data, 'utf8'));
    if (eof) break;
  }
  await session.send('IO.close', { handle });
  return Buffer.concat(chunks).toString('utf8');
}

/**
 * The longest top-level task on the CrRendererMain thread of the renderer
 * showing `url` (or of process `pid`, when known); of every renderer when the
 * trace does not say which one shows `url`.
 */
export function longestRendererTask(trace, url, pid = null) {
  const events = Array.isArray(trace) ? trace : (trace.traceEvents ?? []);
  const origin = new URL(url).origin;
  let rendererPid = pid;
  for (const e of pid === null ? events : []) {
    const frames = e.name === 'TracingStartedInBrowser' ? e.args?.data?.frames : null;
    const frame = frames?.find((f) => typeof f.url === 'string' && f.url.startsWith(origin) && !f.parent);
    if (frame) rendererPid = frame.processId;
  }
  const mainThreads = new Set(
    events
      .filter((e) => e.ph === 'M' && e.name === 'thread_name' && e.args?.name === 'CrRendererMain')
      .filter((e) => rendererPid === null || e.pid === rendererPid)
      .map((e) => `${e.pid}:${e.tid}`),
  );
  const taskEvent = events.some((e) => e.name === TASK_EVENT) ? TASK_EVENT : 'RunTask';
  let longest = 0;
  let over50 = 0;
  for (const e of events) {
    if (e.ph !== 'X' || e.name !== taskEvent || !mainThreads.has(`${e.pid}:${e.tid}`)) continue;
    const ms = (e.dur ?? 0) / 1000;
    longest = Math.max(longest, ms);
    if (ms > 50) over50++;
  }
  return { longestTaskMs: longest, tasksOver50: over50 };
}

/** Main-thread task time (s) so far, from CDP `Performance.getMetrics` (TaskDuration). */
export async function mainThreadBusySeconds(cdp) {
  const { metrics } = await cdp.send('Performance.getMetrics');
  return metrics.find((m) => m.name === 'TaskDuration')?.value ?? NaN;
}

/** The page's main-thread JS heap in bytes after a full GC (CDP). */
export async function heapAfterGc(cdp) {
  await cdp.send('HeapProfiler.collectGarbage');
  const { usedSize } = await cdp.send('Runtime.getHeapUsage');
  return usedSize;
}

/**
 * The page's retained heap: the least of `samples` readings of
 * {@link heapAfterGc}, `gapMs` apart. GC and the reading are two CDP calls, and
 * a busy page allocates between them, so one reading carries whatever was in
 * flight at that moment (on the demo, idle, two readings in a row differ by up
 * to 0.5 MB); what the page holds on to is the floor of several.
 */
export async function retainedHeap(cdp, samples = 5, gapMs = 30) {
  let least = Infinity;
  for (let i = 0; i < samples; i++) {
    if (i > 0) await new Promise((resolve) => setTimeout(resolve, gapMs));
    least = Math.min(least, await heapAfterGc(cdp));
  }
  return least;
}
