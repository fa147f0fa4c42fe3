/**
 * Splits one-caller `tradescript_call`s into their hops and says what each
 * slow hop waited for (bench/tailCalls.mjs). All times are µs on the
 * monotonic clock: the bench's own `process.hrtime`, the server's
 * (bench/lib/hopTimes.mjs) and Chromium's trace timestamps are one clock on
 * Linux.
 */

/** The hops of one call, in order, between the points of {@link callPoints}. */
export const HOPS = [
  ['client → server', 'c0', 'stdin'],
  ['server: request → socket', 'stdin', 'sockOut'],
  ['socket → bridge', 'sockOut', 'wsRecv'],
  ['bridge: request task', 'wsRecv', 'bridgeDone'],
  ['bridge → page (main-thread queue)', 'bridgeDone', 'handle'],
  ['page: host SDK', 'handle', 'handled'],
  ['page → bridge → socket', 'handled', 'wsSend'],
  ['socket → server', 'wsSend', 'sockIn'],
  ['server: answer → stdout', 'sockIn', 'stdout'],
  ['server → client', 'stdout', 'c5'],
];

const TASK = 'ThreadControllerImpl::RunTask';

/** The first value of ascending `xs` at or after `from` (and at most `to`), else undefined. */
function firstFrom(xs, from, to = Infinity) {
  let lo = 0;
  let hi = xs.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (xs[mid] < from) lo = mid + 1;
    else hi = mid;
  }
  return lo < xs.length && xs[lo] <= to ? xs[lo] : undefined;
}

/**
 * The page's renderer in a trace: its main thread's and its bridge worker's
 * top-level tasks, their events, the call marks and WebSocket instants. The
 * bridge is the thread that owns the relay socket: the page's main thread
 * since issue 15's split (then the "bridge → page" hop is empty: the task
 * that reads the frame calls the host SDK), the worker in older builds.
 */
export function browserTimeline(events) {
  const handle = events.find((e) => e.name === 'ts:call.handle');
  if (!handle) throw new Error('no ts:call.handle mark in the trace: does the build carry the call marks?');
  const pid = handle.pid;
  const threadName = new Map(
    events.filter((e) => e.ph === 'M' && e.name === 'thread_name' && e.pid === pid).map((e) => [e.tid, e.args.name]),
  );
  const tidOf = (name) => [...threadName].find(([, n]) => n === name)?.[0];
  const main = tidOf('CrRendererMain');
  const worker = tidOf('DedicatedWorker thread');
  const mine = events.filter((e) => e.pid === pid);
  const bridge = mine.find((e) => e.name === 'WebSocketReceive')?.tid ?? worker;
  const sortedTs = (pred) =>
    mine
      .filter(pred)
      .map((e) => e.ts)
      .sort((a, b) => a - b);
  const tasksOf = (tid) =>
    mine.filter((e) => e.ph === 'X' && e.name === TASK && e.tid === tid).sort((a, b) => a.ts - b.ts);
  const insideOf = (tid) => mine.filter((e) => e.tid === tid && e.name !== TASK).sort((a, b) => a.ts - b.ts);
  return {
    handle: sortedTs((e) => e.name === 'ts:call.handle'),
    handled: sortedTs((e) => e.name === 'ts:call.handled'),
    wsRecv: sortedTs((e) => e.name === 'WebSocketReceive'),
    wsSend: sortedTs((e) => e.name === 'WebSocketSend'),
    mainTasks: tasksOf(main),
    workerTasks: tasksOf(worker),
    bridgeTasks: tasksOf(bridge),
    bridgeIsMain: bridge === main,
    mainInside: insideOf(main),
    workerInside: insideOf(worker),
  };
}

/** The task of ascending `tasks` that holds time `at`, else undefined. */
function taskAt(tasks, at) {
  let lo = 0;
  let hi = tasks.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (tasks[mid].ts <= at) lo = mid + 1;
    else hi = mid;
  }
  const t = tasks[lo - 1];
  return t && t.ts + t.dur >= at ? t : undefined;
}

/** Each call's points (µs) or null when one could not be matched (a heartbeat in between, a lost mark). */
export function callPoints(calls, server, browser) {
  const of = (kind) => server.filter((e) => e.kind === kind).sort((a, b) => a.at - b.at);
  const io = { stdin: of('stdin'), sockOut: of('sockOut'), sockIn: of('sockIn'), stdout: of('stdout') };
  const at = Object.fromEntries(Object.entries(io).map(([k, xs]) => [k, xs.map((e) => e.at)]));
  return calls.map(({ c0, c5 }) => {
    const p = { c0, c5 };
    p.stdin = firstFrom(at.stdin, c0, c5);
    p.wsRecv = firstFrom(browser.wsRecv, p.stdin ?? Infinity, c5);
    // The request's frame is the last write before the bridge read it (ws writes header and payload apart).
    const out = at.sockOut.filter((t) => t >= (p.stdin ?? Infinity) && t <= (p.wsRecv ?? -Infinity));
    p.sockOut = out[out.length - 1];
    p.handle = firstFrom(browser.handle, p.wsRecv ?? Infinity, c5);
    const task = p.wsRecv === undefined ? undefined : taskAt(browser.bridgeTasks, p.wsRecv);
    p.bridgeDone = task ? Math.min(task.ts + task.dur, p.handle ?? Infinity) : p.wsRecv;
    p.handled = firstFrom(browser.handled, p.handle ?? Infinity, c5);
    p.wsSend = firstFrom(browser.wsSend, p.handled ?? Infinity, c5);
    p.sockIn = firstFrom(at.sockIn, p.wsSend ?? Infinity, c5);
    p.stdout = firstFrom(at.stdout, p.sockIn ?? Infinity, c5);
    const cpuAt = (kind, t) => io[kind].find((e) => e.at === t)?.cpu;
    p.serverCpu = {
      request: cpuAt('sockOut', p.sockOut) - cpuAt('stdin', p.stdin),
      answer: cpuAt('stdout', p.stdout) - cpuAt('sockIn', p.sockIn),
    };
    return HOPS.every(([, a, b]) => p[a] !== undefined && p[b] !== undefined && p[b] >= p[a]) ? p : null;
  });
}

/** What a page main-thread task was, from the events inside it. */
export function taskKind(task, inside) {
  const within = inside.filter((e) => e.ts >= task.ts && e.ts <= task.ts + task.dur);
  const has = (name) => within.some((e) => e.name === name);
  if (has('ts:call.handle')) return 'the call itself';
  const scripts = within.filter((e) => e.name === 'FunctionCall').map((e) => e.args?.data?.url ?? '');
  if (has('FireAnimationFrame')) {
    return scripts.some((u) => u.includes('lightweight-charts'))
      ? 'chart paint (lightweight-charts rAF) + frame'
      : 'demo views (rAF) + style/layout/paint';
  }
  if (has('TimerFire')) return 'demo timer (market tick, clock)';
  if (has('Paint') || has('Layout') || has('UpdateLayoutTree') || has('Commit'))
    return 'frame: style/layout/paint/commit';
  if (has('MinorGC') || has('MajorGC')) return 'page GC';
  if (scripts.length > 0) return 'script / message';
  return within.length === 0 ? 'other task (no inner events)' : `other task (${within[0].name})`;
}

/** Sum of the overlap (µs) of `[a, b]` with each of `spans` ({ts, dur}). */
function overlap(spans, a, b) {
  let sum = 0;
  for (const s of spans) sum += Math.max(0, Math.min(b, s.ts + s.dur) - Math.max(a, s.ts));
  return sum;
}

/**
 * Why hop `index` of call `p` took as long as it did: the largest of the page
 * main thread's other tasks over the hop (by kind), GC in the server, the
 * client or the page, the server's own CPU time, or else a wait for a core
 * (wall time with no task of ours running that the hop needed).
 */
export function hopCause(index, p, ctx) {
  const [, from, to] = HOPS[index];
  const [a, b] = [p[from], p[to]];
  const wall = b - a;
  const gcs = [
    ['server GC', ctx.serverGc],
    ['client (bench) GC', ctx.clientGc],
    ['page GC', ctx.pageGc],
    ['worker GC', ctx.workerGc],
  ].map(([label, spans]) => [label, overlap(spans, a, b)]);
  const gc = gcs.sort((x, y) => y[1] - x[1])[0];
  if (gc[1] >= wall / 2) return gc[0];
  // The hops that wait for the page's main thread: the queue before the host SDK and the SDK's own; where the
  // page owns the socket, also the frame's arrival and its task (a message waits for the thread like any task).
  const onMain = from === 'bridgeDone' || from === 'handle';
  if (onMain || (ctx.browser.bridgeIsMain && (from === 'sockOut' || from === 'wsRecv'))) {
    const busy = new Map();
    for (const t of ctx.browser.mainTasks) {
      if (t.ts + t.dur < a || t.ts > b) continue;
      const kind = taskKind(t, ctx.browser.mainInside);
      if (kind === 'the call itself') continue;
      busy.set(kind, (busy.get(kind) ?? 0) + overlap([t], a, b));
    }
    const top = [...busy].sort((x, y) => y[1] - x[1])[0];
    if (top && top[1] >= wall / 2) return `page main thread busy: ${top[0]}`;
  }
  if (from === 'wsRecv') return 'bridge task ran long';
  const cpu = from === 'stdin' ? p.serverCpu.request : from === 'sockIn' ? p.serverCpu.answer : NaN;
  if (Number.isFinite(cpu) && cpu >= wall / 2) return 'server CPU';
  return 'waiting for a core / wake-up (nothing of ours running)';
}
