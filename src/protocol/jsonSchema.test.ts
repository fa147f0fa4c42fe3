import { describe, expect, it } from 'vitest';
import * as z from 'zod/mini';
import { untypedObjectUnions, withObjectUnionTypes, withoutAnyStringPropertyNames } from './jsonSchema.js';
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

describe('withoutAnyStringPropertyNames (SPEC §3 published schemas)', () => {
  it('drops the any-string key schema of a record, keeps its values and description, and leaves the input alone', () => {
    const plain = json(z.object({ revisions: z.record(z.string(), z.int()).check(z.describe('Read last.')) }));
    const trimmed = withoutAnyStringPropertyNames(plain);
    const revisions = (trimmed['properties'] as Record<string, Record<string, unknown>>)['revisions'];
    expect(revisions).not.toHaveProperty('propertyNames');
    expect(revisions).toMatchObject({
      type: 'object',
      description: 'Read last.',
      additionalProperties: { type: 'integer' },
    });
    expect(JSON.stringify(plain)).toContain('"propertyNames":{"type":"string"}');
  });

  it('keeps a key schema that constrains keys, and a property that is named propertyNames', () => {
    const keyed = json(z.record(z.string().check(z.minLength(1)), z.int()));
    expect(withoutAnyStringPropertyNames(keyed)).toEqual(keyed);
    const named = { type: 'object', properties: { propertyNames: { type: 'string' } } };
    expect(withoutAnyStringPropertyNames(named)).toEqual(named);
    const both = {
      type: 'object',
      propertyNames: { type: 'string', pattern: '^a' },
      $defs: { propertyNames: { type: 'string' } },
    };
    expect(withoutAnyStringPropertyNames(both)).toEqual(both);
  });
});
