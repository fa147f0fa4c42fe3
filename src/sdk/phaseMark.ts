/**
 * Timestamps of a snapshot's phases for `bench/snapshotPhases.mjs` (SPEC §8,
 * §12), and of a host call's start and end on the page for
 * `bench/tailCalls.mjs`: a `ts:`-named performance mark, made only while such
 * a script has set `__tradescriptPhaseMarks` on the page's (or worker's)
 * global; otherwise a property read and nothing else.
 */

/** The global the scripts set the flag on. */
const flagged = globalThis as { __tradescriptPhaseMarks?: unknown };

/**
 * The flag is an own property of the global from the start (false until a
 * script sets it), so reading it is a plain property read. On a page, a name
 * the window lacks is looked up through its named-property interceptor (the
 * document's named elements and frames): ~3 µs of each host call's ~70 µs of
 * page script, which reads the flag twice (issue 15, `bench/pageJsAB.mjs`).
 */
if (!Object.prototype.hasOwnProperty.call(flagged, '__tradescriptPhaseMarks')) flagged.__tradescriptPhaseMarks = false;

/**
 * Marks phase `name` of a capture, when marks were asked for; `detail` (only
 * called then) gives the mark's detail, e.g. how many elements a clone holds.
 */
export function phaseMark(name: string, detail?: () => unknown): void {
  if (flagged.__tradescriptPhaseMarks === true) {
    performance.mark(`ts:${name}`, detail ? { detail: detail() } : undefined);
  }
}
