import { afterEach, describe, expect, it } from 'vitest';
import { phaseMark } from './phaseMark.js';

const flagged = globalThis as { __tradescriptPhaseMarks?: unknown };

describe('phaseMark (bench/snapshotPhases.mjs)', () => {
  afterEach(() => {
    flagged.__tradescriptPhaseMarks = false;
    performance.clearMarks();
  });

  it('SPEC §12 keeps the flag as an own property of the global, false until a script sets it', () => {
    // Own, so a page's reads never reach the window's named-property lookup (issue 15).
    expect(Object.getOwnPropertyDescriptor(globalThis, '__tradescriptPhaseMarks')).toMatchObject({
      value: false,
      writable: true,
    });
    phaseMark('call.handle');
    expect(performance.getEntriesByName('ts:call.handle')).toHaveLength(0);
    // As bench/tailCalls.mjs sets it on the page.
    Object.assign(globalThis, { __tradescriptPhaseMarks: true });
    phaseMark('call.handle');
    expect(performance.getEntriesByName('ts:call.handle', 'mark')).toHaveLength(1);
  });

  it('SPEC §12 marks nothing unless the phase script asked for marks', () => {
    phaseMark('layer.clone');
    flagged.__tradescriptPhaseMarks = 'yes';
    phaseMark('layer.clone');
    expect(performance.getEntriesByName('ts:layer.clone')).toHaveLength(0);
  });

  it('SPEC §12 marks a named phase once asked', () => {
    flagged.__tradescriptPhaseMarks = true;
    phaseMark('layer.clone');
    expect(performance.getEntriesByName('ts:layer.clone', 'mark')).toHaveLength(1);
  });

  it("SPEC §12 computes a mark's detail only when marks were asked for", () => {
    let asked = 0;
    const detail = (): { elements: number } => ({ elements: ++asked });
    phaseMark('snapdom.cloned', detail);
    expect(asked).toBe(0);
    flagged.__tradescriptPhaseMarks = true;
    phaseMark('snapdom.cloned', detail);
    const [mark] = performance.getEntriesByName('ts:snapdom.cloned', 'mark') as PerformanceMark[];
    expect(mark?.detail).toEqual({ elements: 1 });
  });
});
