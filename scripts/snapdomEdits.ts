/**
 * Build-time edits of `@zumer/snapdom` 3.1.1 (SPEC §8, §12), applied by every
 * build that bundles the engine (the browser library, the demo, the e2e
 * fixture pages), so each ships the engine the same way.
 *
 * 1. The torn-clone retry. A sliced clone yields to the page about every
 *    16 ms; afterwards snapdom asks its memo whether the layer was "torn"
 *    meanwhile and, if so, redoes the whole clone unsliced (one long task).
 *    It counted as torn a mutation inside the element (its observers), a
 *    media event, or *any* mutation elsewhere in the document: on a live page
 *    that is every clone that yielded. The edit keeps the first two and
 *    replaces the third with the test snapdom's own memo already trusts to
 *    decide that mutations outside an element leave its capture valid (it
 *    returns the previous capture unchanged when they pass): the element's
 *    style stamp (restamped when an ancestor, or a sibling of the element or
 *    of an ancestor, changes: inherited and sibling-selector styles; and for
 *    every change when `:has()` or the body/root element are involved), the
 *    style environment epoch (sheets, head, viewport), the boxes of the
 *    element and its ancestors, and the render state (viewport, scroll,
 *    controls, images, adopted sheets, focus). A mutation outside that moves
 *    none of these leaves each element of the layer as it was, so a clone
 *    spanning it equals one taken before or after. When the box moved, the
 *    element's subtree also leaves snapdom's per-element style cache, as the
 *    memo does: the engine's own retry answered from it and stayed torn.
 *    With `__tradescriptPhaseMarks` set (src/sdk/phaseMark.ts), a retry is
 *    marked `ts:snapdom.retry.<why>` (media, inside, stamp, env,
 *    box, render), and a sliced clone kept although the page
 *    changed outside the element `ts:snapdom.keptOutside`
 *    (bench/snapshotPhases.mjs prints them with PHASES_VERBOSE=1).
 *
 * 2. The stylesheet scan. Before each clone snapdom scans every style sheet
 *    (and the document's animations' keyframes) for the properties, pseudo
 *    elements and selectors it must heed (`Xt`, about 17 ms on the demo
 *    terminal), and it redid the scan whenever its mutation epoch moved: any
 *    DOM change anywhere, so on a live page at every capture. The scan reads
 *    nothing but the sheets' rules and the animations' keyframes, so the edit
 *    keeps its result while the key of what it reads holds: snapdom's style
 *    environment epoch (bumped when a `<style>` or `<link>` anywhere, or the
 *    head, changes, and on resize), each sheet (document and adopted, by
 *    identity) with its rule count (an `insertRule`/`deleteRule`, a sheet
 *    loading), and the properties the document's animations animate.
 *    Unchanged from snapdom: a CSSOM edit that keeps every rule count (a
 *    rule's declaration set from script) is seen by no snapdom cache; before,
 *    the scan caught it only when some unrelated DOM change came with it.
 *
 * Each replacement must match exactly once, or the build fails: a new
 * snapdom needs these edits reviewed, not silently skipped. Replacements stay
 * on the line they replace and the helpers are appended, so the engine's
 * source map still points at the right lines.
 */
import type { Plugin } from 'vite';

/** The engine's module, as the builds resolve it. */
const MODULE = /[\\/]@zumer[\\/]snapdom[\\/]dist[\\/]snapdom\.mjs$/;

/** The version the replacements were written against. */
export const SNAPDOM_VERSION = '3.1.1';

/**
 * The key of what the stylesheet scan reads: the style environment epoch, each sheet's identity and rule count
 * (document sheets, then adopted ones), and the properties the document's animations animate (`Cr`, as the
 * scan collects them).
 *
 * The outside test, as snapdom's memo takes it (`Aa`): the style stamp or the environment moved; the element's
 * or an ancestor's box, or a control's value, moved (the memo then also drops the element's subtree from the
 * per-element style cache, `ie`, whose entries would otherwise hold the old layout: without that a retry
 * answered from it and stayed torn, e2e/sdkCapture.test.ts); the render state's style part moved (the memo
 * bumps the environment, `xe`); scroll or images moved. Animation times are left out: they move every frame,
 * and the original test did not count them either.
 */
const HELPERS = `function __tsMark(n){n&&globalThis.__tradescriptPhaseMarks===!0&&performance.mark("ts:"+n)}
function __tsSheetsKey(t){let k=[Se(t)],a=[...t.styleSheets||[]];try{Array.isArray(t.adoptedStyleSheets)&&a.push("adopted",...t.adoptedStyleSheets)}catch{}for(let x of a){if(typeof x=="string"){k.push(x);continue}let n;try{n=x.cssRules.length}catch{n="-"}k.push(We(x)+":"+n)}if(typeof t.getAnimations=="function"){let p=new Set;Cr(t.getAnimations(),p);k.push("anim",...[...p].sort())}return k.join("|")}
function __tsOutsideState(t,o,m){return{stamp:tn(t),env:Se(),geometry:fa(t),render:m}}
function __tsOutsideMoved(t,o,s){if(tn(t)!==s.stamp)return"stamp";if(Se()!==s.env)return"env";let r=ma(t,o);if(fa(t)!==s.geometry||!Ie(s.render,r,"controls"))return ie(t),"box";if(!Ie(s.render,r,"style"))return xe(),"render";return!Ie(s.render,r,"scroll")||!Ie(s.render,r,"images")?"render":""}
`;

/** [what snapdom 3.1.1 has, what it becomes]; each must occur exactly once. */
export const REPLACEMENTS: ReadonlyArray<readonly [string, string]> = [
  // The torn test: mutations inside (observers), media events, and outside only what reaches the element.
  [
    'n.__tornSinceStart=()=>{for(let x of o.observers)for(let _ of x.takeRecords())o.pending.push(_);return At(),o.torn||da(o.pending)||Ze(t)!==l},C=await r()',
    'n.__tornSinceStart=(S0=>()=>{for(let x of o.observers)for(let _ of x.takeRecords())o.pending.push(_);At();let T=o.torn?"media":da(o.pending)?"inside":__tsOutsideMoved(t,o,S0);return __tsMark(T?"snapdom.retry."+T:Ze(t)!==l?"snapdom.keptOutside":""),!!T})(__tsOutsideState(t,o,m)),C=await r()',
  ],
  // The stylesheet scan: kept while the key of what it reads holds (see HELPERS), not redone at every DOM change.
  [
    'function Xt(t){let e=mi.get(t);if(!e||e.epoch!==we){let n=e&&e.universe;e={epoch:we,...ii(t)};',
    'function Xt(t){let e=mi.get(t),K;if(e&&e.epoch!==we&&e.sheetsKey===(K=__tsSheetsKey(t)))e.epoch=we;if(!e||e.epoch!==we){let n=e&&e.universe;e={epoch:we,sheetsKey:K??__tsSheetsKey(t),...ii(t)};',
  ],
];

/** Applies {@link REPLACEMENTS} to the engine's source; throws naming the first that does not match once. */
export function editSnapdom(code: string): string {
  let edited = code;
  for (const [from, to] of REPLACEMENTS) {
    const count = edited.split(from).length - 1;
    if (count !== 1) {
      throw new Error(
        `@zumer/snapdom: expected ${from.slice(0, 60)}… once, found ${count} (written for ${SNAPDOM_VERSION}); review scripts/snapdomEdits.ts`,
      );
    }
    edited = edited.replace(from, () => to);
  }
  // Appended, so the engine's lines (and its source map's lines) stay where they were.
  return `${edited}\n${HELPERS}`;
}

/** The Vite plugin: edits the engine's module as it is loaded. */
export function snapdomEdits(): Plugin {
  return {
    name: 'tradescript-snapdom-edits',
    enforce: 'pre',
    transform(code, id) {
      if (!MODULE.test(id.split('?')[0] ?? id)) return null;
      try {
        return { code: editSnapdom(code), map: null };
      } catch (error) {
        return this.error(error instanceof Error ? error.message : String(error));
      }
    },
  };
}
