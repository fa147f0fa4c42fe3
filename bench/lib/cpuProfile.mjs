/**
 * Reads a V8 `.cpuprofile` as the call-path profiles need it: self time by
 * where the code lives (our build by folder, each package, Node's internals,
 * GC, idle) and the hottest functions, per call.
 */
import { readFileSync } from 'node:fs';

/** Where a profile node's code lives: `ours: server/http`, `@modelcontextprotocol/server`, `node`, `(gc)` … */
export function placeOf(callFrame) {
  const { url, functionName } = callFrame;
  if (!url) {
    if (functionName === '(garbage collector)') return '(gc)';
    if (functionName === '(idle)') return '(idle)';
    if (functionName === '(program)') return '(program)';
    return '(native)';
  }
  const pkg = /node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(url);
  if (pkg) return pkg[1];
  const ours = /\/dist\/node\/([^/]+(?:\/[^/]+)?)\//.exec(url);
  if (ours) return `ours: ${ours[1]}`;
  if (url.startsWith('node:')) return 'node';
  if (url.includes('/bench/')) return 'bench fixture';
  if (/^https?:/.test(url)) return `browser: ${new URL(url).pathname.split('/').pop()}`;
  return url;
}

function functionKey(f) {
  return `${f.functionName || '(anonymous)'} ${f.url.replace(/.*\/(node_modules|dist)\//, '')}:${f.lineNumber + 1}`;
}

/**
 * A `where` for {@link summarizeProfile} that names browser code by its source
 * (the build's `.map` files in `assetsDir`): the place is the source file, the
 * key the function and its line there. Falls back to {@link placeOf} when a
 * frame has no map (or `@jridgewell/trace-mapping`, which Vite brings, is absent).
 */
export async function sourceMapped(assetsDir) {
  const mapping = await import('@jridgewell/trace-mapping').catch(() => null);
  const maps = new Map();
  const mapOf = (url) => {
    const file = url.split('/').pop();
    if (!maps.has(file)) {
      let map = null;
      try {
        map = mapping && new mapping.TraceMap(readFileSync(`${assetsDir}/${file}.map`, 'utf8'));
      } catch {
        // No map for this file: it keeps its bundle name.
      }
      maps.set(file, map);
    }
    return maps.get(file);
  };
  return (f) => {
    const map = f.url ? mapOf(f.url) : null;
    const at = map && mapping.originalPositionFor(map, { line: f.lineNumber + 1, column: f.columnNumber });
    if (!at?.source) return { place: placeOf(f), key: functionKey(f) };
    const source = at.source.replace(/^(\.\.\/)+/, '').replace(/.*node_modules\//, '');
    return { place: source, key: `${at.name ?? (f.functionName || '(anonymous)')} ${source}:${at.line}` };
  };
}

/** Self time (ms) per node id of a profile. */
function selfTimes(profile) {
  const self = new Map();
  const { samples, timeDeltas } = profile;
  for (let i = 0; i < samples.length; i++) {
    const dt = (timeDeltas[i + 1] ?? 0) / 1000;
    self.set(samples[i], (self.get(samples[i]) ?? 0) + dt);
  }
  return self;
}

/**
 * Summarizes a profile written over `calls` calls: ms per call by place and
 * the `top` hottest functions (self ms per call).
 */
export function summarizeProfile(file, calls, top = 25, where = placeOf) {
  const profile = JSON.parse(readFileSync(file, 'utf8'));
  const self = selfTimes(profile);
  const byPlace = new Map();
  const byFunction = new Map();
  let busy = 0;
  for (const node of profile.nodes) {
    const ms = self.get(node.id) ?? 0;
    if (ms === 0) continue;
    const f = node.callFrame;
    const { place, key } = where === placeOf ? { place: placeOf(f), key: functionKey(f) } : where(f);
    byPlace.set(place, (byPlace.get(place) ?? 0) + ms);
    if (place !== '(idle)') busy += ms;
    byFunction.set(key, (byFunction.get(key) ?? 0) + ms);
  }
  const perCall = (entries) => [...entries].map(([k, ms]) => [k, ms / calls]).sort((a, b) => b[1] - a[1]);
  return {
    wallMs: (profile.endTime - profile.startTime) / 1000 / calls,
    busyMs: busy / calls,
    places: perCall(byPlace),
    functions: perCall(byFunction).slice(0, top),
  };
}

/** Prints a summary from {@link summarizeProfile}. */
export function printProfile(label, summary) {
  console.log(`\n${label}: ${summary.wallMs.toFixed(3)} ms wall, ${summary.busyMs.toFixed(3)} ms on-CPU per call`);
  for (const [place, ms] of summary.places) console.log(`  ${ms.toFixed(3).padStart(7)} ms  ${place}`);
  console.log('  hottest functions (self ms per call):');
  for (const [name, ms] of summary.functions) console.log(`  ${ms.toFixed(4).padStart(8)}  ${name}`);
}
