/**
 * Loaded into a server under test with `NODE_OPTIONS=--import=<this file>`
 * (by bench/serverGc.mjs); does nothing unless `TRADESCRIPT_GC_PROBE_OUT` names
 * a directory. Then each SIGUSR2 toggles a measuring window: the first starts
 * V8's GC profiler (every GC's kind, pause, and each heap space's used bytes
 * before and after) and, when the file `<dir>/sample` exists, the sampling
 * heap profiler (every allocation site, garbage included); the second stops
 * them and writes `<dir>/gc-<pid>.json` (and `heap-<pid>.heapprofile`, which
 * DevTools opens). When `<dir>/survivors` exists instead, the sampling
 * profile leaves out what a scavenge collected: the sites of what survived
 * one (and what a scavenge's cost grows with); with `<dir>/retained`, it keeps
 * only what is still alive after a full GC at the window's end: the sites of
 * what the window's calls left behind. Nothing goes to stdout: it is the MCP channel.
 */
import { existsSync, writeFileSync } from 'node:fs';
import { Session } from 'node:inspector';
import { join } from 'node:path';
import v8 from 'node:v8';

const dir = process.env.TRADESCRIPT_GC_PROBE_OUT;
if (dir) {
  let window = null;
  const post = (session, method, params) =>
    new Promise((resolve, reject) =>
      session.post(method, params, (error, result) => (error ? reject(error) : resolve(result))),
    );
  const usedBySpace = () =>
    Object.fromEntries(v8.getHeapSpaceStatistics().map((s) => [s.space_name, s.space_used_size]));
  process.on('SIGUSR2', () => {
    if (!window) {
      const profiler = new v8.GCProfiler();
      window = { profiler, session: null, start: usedBySpace() };
      profiler.start();
      const mode = ['sample', 'survivors', 'retained'].find((m) => existsSync(join(dir, m)));
      if (mode) {
        window.session = new Session();
        window.session.connect();
        void post(window.session, 'HeapProfiler.startSampling', {
          samplingInterval: 256,
          includeObjectsCollectedByMajorGC: mode !== 'retained',
          includeObjectsCollectedByMinorGC: mode === 'sample',
        });
      }
      return;
    }
    const { profiler, session, start } = window;
    window = null;
    const end = usedBySpace();
    const gcs = profiler.stop();
    const write = (profile) => {
      if (profile) writeFileSync(join(dir, `heap-${process.pid}.heapprofile`), JSON.stringify(profile));
      writeFileSync(join(dir, `gc-${process.pid}.json`), JSON.stringify({ start, end, gcs }));
    };
    if (!session) return write(null);
    void post(session, 'HeapProfiler.collectGarbage', {})
      .then(() => post(session, 'HeapProfiler.stopSampling', {}))
      .then(({ profile }) => (session.disconnect(), write(profile)));
  });
}
