/**
 * Where Chromium spends a stretch of time, thread by thread (a trace's
 * top-level tasks), for the call-path profile and A/B.
 */

/**
 * Each Chromium thread's busy time (ms, top-level tasks) while `body` runs
 * under a trace; `byPid: false` adds up the threads of one name across
 * processes (every renderer's CrRendererMain as one).
 * @returns {Promise<{ busy: Map<string, number>, wallMs: number }>}
 */
export async function threadBusy(browser, page, body, { byPid = true } = {}) {
  await browser.startTracing(page, { categories: ['toplevel'] });
  const t0 = performance.now();
  await body();
  const wallMs = performance.now() - t0;
  const events = JSON.parse((await browser.stopTracing()).toString('utf8')).traceEvents;
  const names = new Map(
    events
      .filter((e) => e.ph === 'M' && e.name === 'thread_name')
      .map((e) => [`${e.pid}:${e.tid}`, byPid ? `${e.args.name} (pid ${e.pid})` : e.args.name]),
  );
  const busy = new Map();
  for (const e of events) {
    if (e.ph !== 'X' || (e.name !== 'ThreadControllerImpl::RunTask' && e.name !== 'ThreadPool_RunTask')) continue;
    const thread = names.get(`${e.pid}:${e.tid}`) ?? `${e.pid}:${e.tid}`;
    busy.set(thread, (busy.get(thread) ?? 0) + e.dur / 1000);
  }
  return { busy, wallMs };
}
