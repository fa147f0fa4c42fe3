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
});
