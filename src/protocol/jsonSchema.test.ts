import { describe, expect, it } from 'vitest';
import * as z from 'zod/mini';
import { untypedObjectUnions, withObjectUnionTypes } from './jsonSchema.js';
import { TargetSchema } from './target.js';

const json = (schema: z.ZodMiniType) => z.toJSONSchema(schema) as Record<string, unknown>;

describe('withObjectUnionTypes (SPEC §3 published schemas)', () => {
  it('adds "type": "object" to a union whose branches are all objects, and keeps every branch', () => {
    const plain = json(z.object({ target: TargetSchema }));
    expect(untypedObjectUnions(plain)).toEqual(['properties.target']);
    const typed = withObjectUnionTypes(plain);
    expect(untypedObjectUnions(typed)).toEqual([]);
    expect(typed['properties']).toMatchObject({ target: { type: 'object', oneOf: expect.any(Array) } });
    expect((typed['properties'] as { target: { oneOf: unknown[] } }).target.oneOf).toEqual(
      (plain['properties'] as { target: { oneOf: unknown[] } }).target.oneOf,
    );
    // A copy: the derived schema is left alone.
    expect(untypedObjectUnions(plain)).toEqual(['properties.target']);
  });

  it('leaves unions with a non-object branch alone, and sees objects behind local $refs and nested unions', () => {
    const mixed = json(z.object({ value: z.union([z.object({ a: z.string() }), z.string()]) }));
    expect(withObjectUnionTypes(mixed)).toEqual(mixed);
    const nullable = json(z.object({ value: z.nullable(z.object({ a: z.string() })) }));
    expect(withObjectUnionTypes(nullable)).toEqual(nullable);
    const viaRef = {
      $defs: { A: { type: 'object', properties: {} } },
      anyOf: [{ $ref: '#/$defs/A' }, { oneOf: [{ type: 'object' }, { type: 'object' }] }],
    };
    expect(untypedObjectUnions(viaRef)).toEqual(['(root)', 'anyOf[1]']);
    expect(untypedObjectUnions(withObjectUnionTypes(viaRef))).toEqual([]);
  });
});
