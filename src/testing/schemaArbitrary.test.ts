/**
 * The arbitraries that fuzz tests call "valid" are valid: every value drawn
 * for the schemas the fuzz tests draw from (each relay frame from the page,
 * the request frame, the error object, each tool's input) passes the zod
 * schema it was converted from. Before this, positive-only integers
 * (`exclusiveMinimum`), nullable arrays (`anyOf … null`) and type lists
 * (`["string", "null"]`) were drawn wrong, and nearly every "valid" request
 * frame was refused.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import * as zm from 'zod/mini';
import { BrowserFrameSchema, ErrorObjectSchema, RequestFrameSchema, TOOLS } from '../protocol/index.js';
import { arbitraryFor, type JsonSchema } from './schemaArbitrary.js';

const SCHEMAS: [string, zm.ZodMiniType][] = [
  ['a frame from the page', BrowserFrameSchema],
  ['a request frame', RequestFrameSchema],
  ['an error object', ErrorObjectSchema],
  ...TOOLS.map((tool): [string, zm.ZodMiniType] => [`${tool.name} input`, tool.input]),
];

describe('schemaArbitrary', () => {
  for (const [name, schema] of SCHEMAS) {
    it(`draws only values ${name} schema accepts`, () => {
      const jsonSchema = z.toJSONSchema(schema, { io: 'input' }) as JsonSchema;
      fc.assert(
        fc.property(arbitraryFor(jsonSchema), (value) => {
          const parsed = zm.safeParse(schema, value);
          expect(parsed.error?.issues ?? []).toEqual([]);
        }),
        { numRuns: 300 },
      );
    });
  }

  it('keeps exclusive bounds and nulls', () => {
    const positive = fc.sample(arbitraryFor({ type: 'integer', exclusiveMinimum: 0, maximum: 3 }), 200);
    expect(new Set(positive)).toEqual(new Set([1, 2, 3]));
    const below = fc.sample(arbitraryFor({ type: 'number', exclusiveMaximum: 1, minimum: 0 }), 200) as number[];
    expect(below.every((n) => n >= 0 && n < 1)).toBe(true);
    expect(new Set(fc.sample(arbitraryFor({ type: ['string', 'null'], maxLength: 0 }), 100))).toEqual(
      new Set(['', null]),
    );
  });
});
