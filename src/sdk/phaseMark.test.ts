import { afterEach, describe, expect, it } from 'vitest';
import { phaseMark } from './phaseMark.js';

const flagged = globalThis as { __tradescriptPhaseMarks?: unknown };

describe('phaseMark (bench/snapshotPhases.mjs)', () => {
  afterEach(() => {
    delete flagged.__tradescriptPhaseMarks;
    performance.clearMarks();
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
