import { AjvJsonSchemaValidator } from '@modelcontextprotocol/client/validators/ajv';
import { afterEach, describe, expect, test } from 'vitest';
import { untypedObjectUnions } from '../../../protocol/index.js';
import { connectClient, envelopeOf, type Harness } from '../../testing/testHarness.js';

let harness: Harness | undefined;
afterEach(async () => {
  await harness?.close();
  harness = undefined;
});

const SPEC_ANNOTATIONS = {
  tradescript_get_context: [true, false, true, false],
  tradescript_list_controls: [true, false, true, false],
  tradescript_call: [false, true, false, true],
  tradescript_batch: [false, true, false, true],
  tradescript_subscribe: [true, false, false, false],
  tradescript_snapshot: [true, false, true, false],
} as const;

describe('tools/list', () => {
  test('SPEC §3 lists the six tools by default with object input and output schemas', async () => {
    harness = await connectClient();
    const { tools } = await harness.client.listTools();
    expect(tools.map((t) => t.name)).toEqual([
      'tradescript_get_context',
      'tradescript_list_controls',
      'tradescript_call',
      'tradescript_batch',
      'tradescript_subscribe',
      'tradescript_snapshot',
    ]);
    for (const tool of tools) {
      expect(tool.inputSchema.type).toBe('object');
      expect(Object.keys(tool.inputSchema.properties ?? {}).length).toBeGreaterThan(0);
      expect(tool.inputSchema).not.toHaveProperty('$schema');
      expect(tool.outputSchema?.type).toBe('object');
      expect(Object.keys(tool.outputSchema?.properties ?? {})).toEqual(['data', 'error', 'meta']);
      expect(tool.description?.length).toBeGreaterThan(40);
      expect(tool.title).toBeTruthy();
    }
  });

  test('SPEC §3 annotations are readOnly, destructive, idempotent, openWorld per the table', async () => {
    harness = await connectClient({
      tools: [
        'tradescript_get_context',
        'tradescript_list_controls',
        'tradescript_call',
        'tradescript_batch',
        'tradescript_subscribe',
        'tradescript_snapshot',
      ],
    });
    const { tools } = await harness.client.listTools();
    expect(tools).toHaveLength(6);
    for (const tool of tools) {
      const a = tool.annotations;
      expect([a?.readOnlyHint, a?.destructiveHint, a?.idempotentHint, a?.openWorldHint]).toEqual(
        SPEC_ANNOTATIONS[tool.name as keyof typeof SPEC_ANNOTATIONS],
      );
    }
  });

  test('SPEC §3 the subscribe schema shows its start/poll/stop/list actions as a flat object', async () => {
    harness = await connectClient({ tools: ['tradescript_subscribe'] });
    const { tools } = await harness.client.listTools();
    const schema = tools[0]?.inputSchema as { type: string; properties: Record<string, { enum?: string[] }> };
    expect(schema.type).toBe('object');
    expect(schema.properties['action']?.enum).toEqual(['start', 'poll', 'stop', 'list']);
    expect(Object.keys(schema.properties)).toEqual(
      expect.arrayContaining(['sessionId', 'target', 'bindings', 'subscriptionId', 'afterSequence', 'limit']),
    );
  });

  test('SPEC §3 the call input schema rejects unknown fields and keeps args optional (defaulted)', async () => {
    harness = await connectClient();
    const { tools } = await harness.client.listTools();
    const call = tools.find((t) => t.name === 'tradescript_call')!;
    expect(call.inputSchema.required).toEqual(['sessionId', 'target', 'controlId']);
    expect((call.inputSchema as Record<string, unknown>)['additionalProperties']).toBe(false);
  });

  test('SPEC §5 --tool-allowlist hides tools outside it', async () => {
    harness = await connectClient({ config: { toolAllowlist: ['tradescript_get_context', 'tradescript_call'] } });
    const { tools } = await harness.client.listTools();
    expect(tools.map((t) => t.name)).toEqual(['tradescript_get_context', 'tradescript_call']);
  });

  test('SPEC §5 a batch is listed only when tradescript_call is allowed too', async () => {
    harness = await connectClient({ config: { toolAllowlist: ['tradescript_get_context', 'tradescript_batch'] } });
    const { tools } = await harness.client.listTools();
    expect(tools.map((t) => t.name)).toEqual(['tradescript_get_context']);
    await harness.close();

    harness = await connectClient({ config: { toolAllowlist: ['tradescript_call', 'tradescript_batch'] } });
    const again = await harness.client.listTools();
    expect(again.tools.map((t) => t.name)).toEqual(['tradescript_call', 'tradescript_batch']);
  });

  test('SPEC §3 outputSchema admits the success and the error envelope, and nothing else', async () => {
    harness = await connectClient();
    const { tools } = await harness.client.listTools();
    const schema = tools.find((t) => t.name === 'tradescript_call')!.outputSchema!;
    const validate = new AjvJsonSchemaValidator().getValidator(schema);
    const args = { sessionId: 's-1', target: { scope: 'session' }, controlId: 'session.noop' };
    const success = envelopeOf(await harness.client.callTool({ name: 'tradescript_call', arguments: args }));
    const failure = envelopeOf(
      await harness.client.callTool({ name: 'tradescript_call', arguments: { ...args, controlId: 7 } }),
    );
    expect(failure.error?.code).toBe('invalid_input');
    expect(validate(success).valid).toBe(true);
    expect(validate(failure).valid).toBe(true);
    expect(validate({ ...failure, error: { ...failure.error, code: 'not_a_code' } }).valid).toBe(false);
    expect(validate({ ...success, extra: 1 }).valid).toBe(false);
  });

  test('SPEC §3 every union of objects in every input schema also says "type": "object" (third-party clients)', async () => {
    harness = await connectClient();
    const { tools } = await harness.client.listTools();
    for (const tool of tools) expect(untypedObjectUnions(tool.inputSchema), tool.name).toEqual([]);
    const call = tools.find((t) => t.name === 'tradescript_call')!.inputSchema as {
      properties: Record<string, { type?: string; oneOf?: unknown[] }>;
    };
    expect(call.properties['target']).toMatchObject({ type: 'object', oneOf: expect.any(Array) });
  });
});
