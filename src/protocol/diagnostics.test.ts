import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { boundDiagnostics, canonicalPath, MAX_DIAGNOSTICS, parseWithDiagnostics } from './diagnostics.js';
import { BatchInputSchema, CallInputSchema } from './tools/index.js';

function issuesOf(schema: z.core.$ZodType, value: unknown) {
  const parsed = parseWithDiagnostics(schema, value);
  if (parsed.ok) throw new Error('expected a failure');
  return parsed.issues;
}

describe('SPEC §4 validation diagnostics', () => {
  it('SPEC §4 unknown fields point at the nearest known parent and never name the key', () => {
    const issues = issuesOf(CallInputSchema, {
      sessionId: 's',
      target: { scope: 'session', sneakyField: 1 },
      controlId: 'chart.getVisibleRange',
      secretKeyName: 'x',
    });
    const text = JSON.stringify(issues);
    expect(text).not.toContain('sneakyField');
    expect(text).not.toContain('secretKeyName');
    expect(issues).toContainEqual(expect.objectContaining({ path: [], code: 'unknown_field' }));
    expect(issues).toContainEqual(expect.objectContaining({ path: ['target'], code: 'unknown_field' }));
  });

  it('SPEC §4 diagnostics never echo submitted values', () => {
    const marker = 'VALUE-THAT-MUST-NOT-LEAK-4242';
    const issues = issuesOf(CallInputSchema, {
      sessionId: 's',
      target: { scope: marker },
      controlId: 7,
      requestId: `${marker} with spaces`,
      context: { origin: marker },
    });
    expect(JSON.stringify(issues)).not.toContain(marker);
    expect(JSON.stringify(issues)).not.toContain('4242');
  });

  it('SPEC §4 batch paths are canonical with zero-based indices', () => {
    const call = { target: { scope: 'session' }, controlId: 'a.b', args: [] };
    const issues = issuesOf(BatchInputSchema, { sessionId: 's', calls: [call, call, call, { ...call, controlId: 5 }] });
    expect(issues).toEqual([{ path: ['calls', 3, 'controlId'], code: 'invalid_type', message: 'Expected a string.' }]);
  });

  it('SPEC §4 a wrong type is not mistaken for a missing field', () => {
    const issues = issuesOf(CallInputSchema, { sessionId: 5, target: { scope: 'session' }, controlId: 'a.b' });
    expect(issues).toEqual([{ path: ['sessionId'], code: 'invalid_type', message: 'Expected a string.' }]);
  });

  it('SPEC §4 a missing field is reported as required', () => {
    const issues = issuesOf(CallInputSchema, { target: { scope: 'session' }, controlId: 'a.b' });
    expect(issues).toEqual([{ path: ['sessionId'], code: 'required', message: 'Required: expected a string.' }]);
  });

  it('SPEC §4 union failures do not leak internal union labels', () => {
    const issues = issuesOf(CallInputSchema, { sessionId: 's', target: { scope: 'galaxy' }, controlId: 'a.b' });
    expect(JSON.stringify(issues)).not.toMatch(/galaxy|ZodUnion|discriminat/i);
    expect(issues[0]?.path).toEqual(['target', 'scope']);
  });

  it('SPEC §4 at most 20 entries, the last an omission notice', () => {
    const many = Array.from({ length: 30 }, (_, i) => ({ path: ['calls', i], code: 'invalid_type', message: 'x' }));
    const bounded = boundDiagnostics(many);
    expect(bounded).toHaveLength(MAX_DIAGNOSTICS);
    expect(bounded.at(-1)).toEqual({ path: [], code: 'more_errors', message: expect.stringContaining('11 more') });
  });

  it('SPEC §4 duplicates are removed, paths clipped to 16 components, messages to 256 characters', () => {
    const deep = Array.from({ length: 40 }, (_, i) => `k${i}`);
    const bounded = boundDiagnostics([
      { path: ['a'], code: 'c', message: 'm' },
      { path: ['a'], code: 'c', message: 'm' },
      { path: deep, code: 'c', message: 'x'.repeat(1000) },
    ]);
    expect(bounded).toHaveLength(2);
    expect(bounded[1]?.path).toHaveLength(16);
    expect(bounded[1]?.message.length).toBeLessThanOrEqual(256);
  });

  it('SPEC §4 a vetted refinement message is used; anything else gets generic guidance', () => {
    const schema = z
      .object({ from: z.number(), to: z.number() })
      .refine((r) => r.from < r.to, { params: { diagnostic: 'from must be before to.' } });
    expect(issuesOf(schema, { from: 2, to: 1 })).toEqual([
      { path: [], code: 'invalid_value', message: 'from must be before to.' },
    ]);
    const raw = z.string().refine(() => false, { message: 'raw exception text' });
    expect(issuesOf(raw, 'q')[0]?.message).toBe('Is not valid here.');
  });

  it('SPEC §4 a record key is submitted text: the path stops at the record and never names it', () => {
    const issues = issuesOf(CallInputSchema, {
      sessionId: 's',
      target: { scope: 'session' },
      controlId: 'a.b',
      expectedRevisions: { SUBMITTED_DOMAIN_KEY: 'x', other: -1 },
    });
    expect(issues).toEqual([
      { path: ['expectedRevisions'], code: 'invalid_type', message: 'Expected a number.' },
      { path: ['expectedRevisions'], code: 'too_small', message: expect.any(String) },
    ]);
    expect(JSON.stringify(issues)).not.toContain('SUBMITTED_DOMAIN_KEY');
  });

  it('SPEC §4 canonicalPath keeps declared fields and indices, through unions and defaults', () => {
    expect(canonicalPath(BatchInputSchema, ['calls', 3, 'target', 'chartId'])).toEqual([
      'calls',
      3,
      'target',
      'chartId',
    ]);
    expect(canonicalPath(BatchInputSchema, ['calls', 0, 'args', 2, 'freeFormKey'])).toEqual(['calls', 0, 'args', 2]);
    expect(canonicalPath(CallInputSchema, ['expectedRevisions', 'k'])).toEqual(['expectedRevisions']);
    expect(canonicalPath(CallInputSchema, ['notAField', 'x'])).toEqual([]);
  });
});
