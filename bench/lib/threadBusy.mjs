/**
 * Where Chromium spends a stretch of time, thread by thread (a trace's
 * top-level tasks), for the call-path profile and A/B.
 */

/** The trace events that are one top-level task each. */
const TOPLEVEL_TASKS = new Set(['ThreadControllerImpl::RunTask', 'ThreadPool_RunTask']);

/**
 * Traces Chromium's top-level tasks while `body` runs.
 * @returns {Promise<{ events: any[], wallMs: number }>}
 */
export async function traceTasks(browser, page, body) {
  await browser.startTracing(page, { categories: ['toplevel'] });
  const t0 = performance.now();
  await body();
  const wallMs = performance.now() - t0;
  const events = JSON.parse((await browser.stopTracing()).toString('utf8')).traceEvents;
  return { events, wallMs };
}

/**
 * Each thread's busy ms and longest task in `events`: threads named with
 * their pid (`byPid`, the default) or added up by name across processes, or
 * only those of process `pid`; `taskNames` says which events are tasks.
 * @returns {{ busy: Map<string, number>, longest: Map<string, number> }}
 */
export function threadTasks(events, { byPid = true, pid, taskNames = TOPLEVEL_TASKS } = {}) {
  const names = new Map(
    events
      .filter((e) => e.ph === 'M' && e.name === 'thread_name')
      .map((e) => [`${e.pid}:${e.tid}`, byPid ? `${e.args.name} (pid ${e.pid})` : e.args.name]),
  );
  const busy = new Map();
  const longest = new Map();
  for (const e of events) {
    if (e.ph !== 'X' || !taskNames.has(e.name) || (pid !== undefined && e.pid !== pid)) continue;
    const thread = names.get(`${e.pid}:${e.tid}`) ?? `${e.pid}:${e.tid}`;
    busy.set(thread, (busy.get(thread) ?? 0) + e.dur / 1000);
    longest.set(thread, Math.max(longest.get(thread) ?? 0, e.dur / 1000));
  }
  return { busy, longest };
}

/**
 * Each Chromium thread's busy time (ms, top-level tasks) while `body` runs
 * under a trace; `byPid: false` adds up the threads of one name across
 * processes (every renderer's CrRendererMain as one).
 * @returns {Promise<{ busy: Map<string, number>, wallMs: number }>}
 */
export async function threadBusy(browser, page, body, { byPid = true } = {}) {
  const { events, wallMs } = await traceTasks(browser, page, body);
  return { busy: threadTasks(events, { byPid }).busy, wallMs };
}
