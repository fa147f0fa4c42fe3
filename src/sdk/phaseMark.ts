/**
 * Timestamps of a snapshot's phases for `bench/snapshotPhases.mjs` (SPEC §8,
 * §12), and of a host call's start and end on the page for
 * `bench/tailCalls.mjs`: a `ts:`-named performance mark, made only while such
 * a script has set `__tradescriptPhaseMarks` on the page's (or worker's)
 * global; otherwise a property read and nothing else.
 */

/**
 * Marks phase `name` of a capture, when marks were asked for; `detail` (only
 * called then) gives the mark's detail, e.g. how many elements a clone holds.
 */
export function phaseMark(name: string, detail?: () => unknown): void {
  if ((globalThis as { __tradescriptPhaseMarks?: unknown }).__tradescriptPhaseMarks === true) {
    performance.mark(`ts:${name}`, detail ? { detail: detail() } : undefined);
  }
}
