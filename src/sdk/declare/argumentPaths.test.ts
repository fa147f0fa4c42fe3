import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { arg, control, createTerminalHost, declareController } from '../index.js';
import { errorOf } from '../testing/expect.js';
import { SESSION, call, request } from '../testing/fixtures.js';

const notes = declareController({
  name: 'notes',
  targetScopes: ['session'],
  revisionDomains: [],
  controls: {
    tag: control({
      description: 'Tags notes.',
      args: [arg('weights', z.record(z.string(), z.number())), arg('label', z.string())],
      result: z.object({ ok: z.boolean() }),
      accessClass: 'write',
      family: 'notes',
      permission: 'notes.write',
      risk: 'write',
      mutation: true,
    }),
  },
});

function host() {
  const terminal = createTerminalHost({ environment: 'paper' });
  terminal.mount(SESSION, notes, { tag: () => ({ ok: true }) });
  return terminal;
}

describe('SPEC §4 control argument diagnostics use canonical paths', () => {
  it('SPEC §4 a record key is submitted text: the path stops at the record and never names the key', async () => {
    const out = await host().handle(request(call('notes.tag', SESSION, [{ 'SUBMITTED-KEY-7731': 'x' }, 'l'])));
    const error = errorOf(out);
    expect(error.code).toBe('invalid_input');
    expect(error.validation_errors).toEqual([
      { path: ['args', 0], code: 'invalid_type', message: 'Expected a number.' },
    ]);
    expect(JSON.stringify(out)).not.toContain('SUBMITTED-KEY-7731');
  });

  it('SPEC §4 a missing argument is required, a wrong one invalid_type', async () => {
    const missing = errorOf(await host().handle(request(call('notes.tag', SESSION, [{}]))));
    expect(missing.validation_errors).toEqual([
      { path: ['args', 1], code: 'required', message: 'Required: expected a string.' },
    ]);
    const wrong = errorOf(await host().handle(request(call('notes.tag', SESSION, [{}, 5]))));
    expect(wrong.validation_errors).toEqual([
      { path: ['args', 1], code: 'invalid_type', message: 'Expected a string.' },
    ]);
  });
});
