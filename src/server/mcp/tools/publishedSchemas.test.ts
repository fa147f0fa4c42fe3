/**
 * The published schemas drop `propertyNames: {"type": "string"}` (toolList,
 * withoutAnyStringPropertyNames). Proof that nothing else changed: on valid,
 * mutated and hostile values, the SDK client's own validator answers the same
 * on the schema as `z.toJSONSchema` derives it and on the published one, and
 * both answer what the zod schema answers.
 */
import { AjvJsonSchemaValidator } from '@modelcontextprotocol/client/validators/ajv';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import * as zm from 'zod/mini';
import {
  AttachmentHandleSchema,
  ATTACHMENT_ARGUMENT,
  envelopeSchema,
  TOOLS,
  withObjectUnionTypes,
} from '../../../protocol/index.js';
import { mutate, mutationArbitrary, PROTOTYPE_KEYS } from '../../../testing/mutations.js';
import { arbitraryFor, freeJson, markedKey, type JsonSchema } from '../../../testing/schemaArbitrary.js';
import { publishStatelessTool, publishTool, type ToolDefinition } from './toolList.js';

type JsonObject = Record<string, unknown>;

/** The schema as derived before the trim: `z.toJSONSchema`, no `$schema`, object unions typed. */
function derived(schema: z.core.$ZodType, io: 'input' | 'output'): JsonObject {
  const { $schema: _ignored, ...json } = z.toJSONSchema(schema, { io }) as JsonObject;
  return withObjectUnionTypes(json);
}

function derivedStatelessInput(tool: ToolDefinition): JsonObject {
  const input = derived('published' in tool ? tool.published : tool.input, 'input');
  const { $schema: _ignored, ...handle } = z.toJSONSchema(AttachmentHandleSchema) as JsonObject;
  return { ...input, properties: { ...(input['properties'] as JsonObject), [ATTACHMENT_ARGUMENT]: handle } };
}

/** The tool's zod input with the optional `attachment` handle a stateless client may send. */
function statelessZod(input: z.core.$ZodType): z.core.$ZodType {
  return zm.pipe(
    zm.looseObject({ [ATTACHMENT_ARGUMENT]: zm.optional(AttachmentHandleSchema) }),
    zm.pipe(
      zm.transform((value: Record<string, unknown>) => {
        const { [ATTACHMENT_ARGUMENT]: _handle, ...rest } = value;
        return rest;
      }),
      // The transform's output is any object; the tool's input schema decides.
      input as z.core.$ZodType<unknown, Record<string, unknown>>,
    ),
  );
}

/** Keys a record may carry: marked, prototype-named, empty, control, lone surrogate, long. */
const hostileKey = fc.oneof(
  markedKey,
  fc.constantFrom(...PROTOTYPE_KEYS, '', ' ', '0', '\u0000', '\ud800', 'k'.repeat(300)),
);

/** A record, array or scalar where any value may sit: odd keys, wrong shapes. */
const hostile: fc.Arbitrary<unknown> = fc.oneof(
  freeJson,
  fc.dictionary(hostileKey, freeJson, { maxKeys: 4 }),
  fc.dictionary(hostileKey, fc.oneof(fc.integer(), fc.constantFrom(-1, 0.5, 2 ** 53, 1e21)), { maxKeys: 4 }),
);

/** `value` with each object-valued field also tried as a hostile record (keys under records are what the trim touches). */
function withHostileRecords(value: unknown, replacement: unknown, index: number): unknown {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return value;
  const keys = Object.keys(value);
  if (keys.length === 0) return replacement;
  const key = keys[index % keys.length]!;
  const copy: JsonObject = { ...(value as JsonObject) };
  const inner = copy[key];
  copy[key] =
    inner !== null && typeof inner === 'object' && !Array.isArray(inner) && index % 2 === 0
      ? withHostileRecords(inner, replacement, Math.floor(index / 2))
      : replacement;
  return copy;
}

const validator = new AjvJsonSchemaValidator();

/** True when some object in `value` has an own `__proto__` key (breadth-first, bounded: mutations nest deep). */
function hasOwnProtoKey(value: unknown): boolean {
  const queue: unknown[] = [value];
  for (let i = 0; i < queue.length && i < 10_000; i++) {
    const node = queue[i];
    if (node === null || typeof node !== 'object') continue;
    if (Object.hasOwn(node, '__proto__')) return true;
    queue.push(...Object.values(node));
  }
  return false;
}

/**
 * Fails unless the derived and the published schema answer alike on valid,
 * mutated and hostile values, and alike with `zodSchema`. The one known
 * difference with zod is older than the trim: a record's own `__proto__`
 * key, which zod's record skips and JSON Schema checks like any key.
 */
function sameAnswers(name: string, before: JsonObject, after: JsonObject, zodSchema: z.core.$ZodType): void {
  const old = validator.getValidator(before);
  const now = validator.getValidator(after);
  const values = arbitraryFor(before as JsonSchema, { maxItems: 3 });
  const cases = fc.tuple(values, fc.array(mutationArbitrary, { maxLength: 3 }), hostile, fc.nat(), fc.nat(3));
  let accepted = 0;
  let rejected = 0;
  fc.assert(
    fc.property(cases, ([value, plan, odd, index, kind]) => {
      const candidates = [value, mutate(value, plan), withHostileRecords(value, odd, index), odd];
      const input = candidates[kind];
      const a = old(input).valid;
      if (now(input).valid !== a)
        throw new Error(`${name}: the published schema answers ${!a} where the derived one answers ${a}`);
      if (zm.safeParse(zodSchema, input).success !== a && !hasOwnProtoKey(input)) {
        throw new Error(`${name}: the JSON Schema answers ${a}, zod ${!a}`);
      }
      if (a) accepted++;
      else rejected++;
    }),
    { numRuns: 600 },
  );
  // Both sides of the set were reached, so the agreement says something.
  expect(accepted, name).toBeGreaterThan(50);
  expect(rejected, name).toBeGreaterThan(50);
}

describe('published tool schemas (SPEC §3) accept what the derived schemas accept', () => {
  it.each(TOOLS.map((tool) => [tool.name, tool] as const))(
    'SPEC §3 %s: the SDK validator answers the same on the derived and the published input and output schemas',
    (name, tool) => {
      const zodInput = 'published' in tool ? tool.published : tool.input;
      const input = derived(zodInput, 'input');
      sameAnswers(`${name} input`, input, publishTool(tool).inputSchema as JsonObject, zodInput);
      const envelope = envelopeSchema(tool.data);
      const output = derived(envelope, 'output');
      sameAnswers(`${name} output`, output, publishTool(tool).outputSchema as JsonObject, envelope);
      // The stateless entry adds `attachment` (a handle string), which the tool's own zod input does not know.
      const stateless = publishStatelessTool(tool).inputSchema;
      sameAnswers(`${name} stateless input`, derivedStatelessInput(tool), stateless, statelessZod(zodInput));
    },
  );

  it('SPEC §3 only the any-string key schema goes; descriptions and every other keyword stay', () => {
    for (const tool of TOOLS) {
      const published = JSON.stringify(publishStatelessTool(tool));
      expect(published, tool.name).not.toContain('"propertyNames":{"type":"string"}');
      const before = JSON.stringify(derivedStatelessInput(tool)).replaceAll(',"propertyNames":{"type":"string"}', '');
      expect(JSON.stringify(publishStatelessTool(tool).inputSchema), tool.name).toBe(before);
      const out = JSON.stringify(derived(envelopeSchema(tool.data), 'output'));
      expect(JSON.stringify(publishTool(tool).outputSchema), tool.name).toBe(
        out.replaceAll(',"propertyNames":{"type":"string"}', ''),
      );
    }
  });
});
