import { ProtocolError as McpError } from '@modelcontextprotocol/client';
import { afterEach, describe, expect, test } from 'vitest';
import { DEFAULT_LIMITS, ERROR_CODES } from '../../../protocol/index.js';
import { connectClient, envelopeOf, type Harness } from '../../testing/testHarness.js';

let harness: Harness | undefined;
afterEach(async () => {
  await harness?.close();
  harness = undefined;
});

const chart = { scope: 'chart', chartId: 'main' };
const entry = (extra: Record<string, unknown> = {}) => ({
  target: chart,
  controlId: 'chart.setVisibleRange',
  args: [],
  ...extra,
});
const call = (extra: Record<string, unknown> = {}) => ({ sessionId: 's-1', ...entry(extra) });

async function callTool(name: string, args: Record<string, unknown>) {
  const result = await harness!.client.callTool({ name, arguments: args });
  return { result, payload: envelopeOf(result), text: (result.content as Array<{ text: string }>)[0]!.text };
}

const ERROR_KEYS = [
  'code',
  'message',
  'status_code',
  'broker_code',
  'broker_message',
  'request_id',
  'validation_errors',
  'retry',
  'auth_url',
  'details',
];

describe('protocol errors and tool availability', () => {
  test('SPEC §4 an unknown tool is a JSON-RPC error, not an envelope, and does not echo the name', async () => {
    harness = await connectClient();
    const error = await harness.client.callTool({ name: 'no_such_tool_xyz', arguments: {} }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(McpError);
    expect((error as McpError).code).toBe(-32602);
    expect((error as McpError).message).not.toContain('no_such_tool_xyz');
    expect((error as McpError).message).toContain('tools/list');
    expect(harness.hub.requests).toHaveLength(0);
  });

  test('SPEC §3 a tool this front does not serve (snapshot) is unknown, never a placeholder', async () => {
    harness = await connectClient({ tools: ['tradescript_get_context'] });
    const error = await harness.client
      .callTool({ name: 'tradescript_snapshot', arguments: { sessionId: 's-1', target: chart } })
      .catch((e: unknown) => e);
    expect((error as McpError).code).toBe(-32602);
  });

  test('SPEC §5 a tool outside --tool-allowlist is tool_not_available with retry never', async () => {
    harness = await connectClient({ config: { toolAllowlist: ['tradescript_get_context'] } });
    const { result, payload } = await callTool('tradescript_call', call());
    expect(result.isError).toBe(true);
    expect(payload.error?.code).toBe('tool_not_available');
    expect(payload.error?.retry).toBe('never');
    expect(Object.keys(payload.error!)).toEqual(ERROR_KEYS);
    expect(harness.hub.requests).toHaveLength(0);
  });

  test('SPEC §5 a batch is tool_not_available when tradescript_call is not allowed', async () => {
    harness = await connectClient({ config: { toolAllowlist: ['tradescript_batch'] } });
    const { payload } = await callTool('tradescript_batch', { sessionId: 's-1', calls: [call()] });
    expect(payload.error?.code).toBe('tool_not_available');
  });
});

describe('limits', () => {
  test('SPEC §6 request JSON over 256 KB is request_too_large', async () => {
    harness = await connectClient();
    const { payload } = await callTool('tradescript_call', call({ args: ['x'.repeat(DEFAULT_LIMITS.requestBytes)] }));
    expect(payload.error?.code).toBe('request_too_large');
    expect(payload.error?.retry).toBe('after_correction');
    expect(harness.hub.requests).toHaveLength(0);
  });

  test('SPEC §6 a string over 128 KB is limit_exceeded stringLength with its max', async () => {
    harness = await connectClient();
    const { payload, text } = await callTool(
      'tradescript_call',
      call({ args: ['y'.repeat(DEFAULT_LIMITS.stringLength + 1)] }),
    );
    expect(payload.error?.code).toBe('limit_exceeded');
    expect(payload.error?.details).toEqual({ limit: 'stringLength', max: DEFAULT_LIMITS.stringLength });
    expect(text).not.toContain('yyyy');
  });

  test('SPEC §6 nesting deeper than 24 is limit_exceeded jsonDepth, not invalid_input', async () => {
    harness = await connectClient();
    let deep: unknown = 1;
    for (let i = 0; i < 30; i += 1) deep = { d: deep };
    const { payload } = await callTool('tradescript_call', call({ args: [deep] }));
    expect(payload.error?.details).toEqual({ limit: 'jsonDepth', max: 24 });
  });

  test('SPEC §6 arguments nested 100,000 deep (JSON.parse takes them, JSON.stringify does not) are jsonDepth, never a JSON-RPC error', async () => {
    harness = await connectClient();
    let deep: unknown = 'deep-value';
    for (let i = 0; i < 100_000; i += 1) deep = [deep];
    const { payload, text } = await callTool('tradescript_call', call({ args: [deep] }));
    expect(payload.error?.details).toEqual({ limit: 'jsonDepth', max: 24 });
    expect(text).not.toMatch(/call stack|deep-value/);
  });

  test('SPEC §6 more than 25 batch calls is limit_exceeded batchCalls', async () => {
    harness = await connectClient();
    const calls = Array.from({ length: 26 }, () => entry());
    const { payload } = await callTool('tradescript_batch', { sessionId: 's-1', calls });
    expect(payload.error?.code).toBe('limit_exceeded');
    expect(payload.error?.details).toEqual({ limit: 'batchCalls', max: 25 });
    expect(harness.hub.requests).toHaveLength(0);
  });

  test('SPEC §6 more than 16 arguments is limit_exceeded callArgs, in a call and in a batch entry', async () => {
    harness = await connectClient();
    const args = Array.from({ length: 17 }, (_, i) => i);
    const single = await callTool('tradescript_call', call({ args }));
    expect(single.payload.error?.details).toEqual({ limit: 'callArgs', max: 16 });
    const batch = await callTool('tradescript_batch', { sessionId: 's-1', calls: [entry(), entry({ args })] });
    expect(batch.payload.error?.details).toEqual({ limit: 'callArgs', max: 16 });
  });

  test('SPEC §6 a lowered limit reports its lowered max', async () => {
    harness = await connectClient({ config: { limits: { ...DEFAULT_LIMITS, batchCalls: 2 } } });
    const { payload } = await callTool('tradescript_batch', { sessionId: 's-1', calls: [entry(), entry(), entry()] });
    expect(payload.error?.details).toEqual({ limit: 'batchCalls', max: 2 });
  });

  test('SPEC §6 subscribe: poll limit over 100 is eventsPerPoll, over 32 bindings is bindingsPerSubscription', async () => {
    harness = await connectClient({ tools: ['tradescript_subscribe'] });
    const poll = await callTool('tradescript_subscribe', { action: 'poll', subscriptionId: 'sub-1', limit: 101 });
    expect(poll.payload.error?.details).toEqual({ limit: 'eventsPerPoll', max: 100 });
    const bindings = Array.from({ length: 33 }, (_, i) => ({ channelId: 'data.quotes', bindingId: `b${i}` }));
    const start = await callTool('tradescript_subscribe', {
      action: 'start',
      sessionId: 's-1',
      target: chart,
      bindings,
    });
    expect(start.payload.error?.details).toEqual({ limit: 'bindingsPerSubscription', max: 32 });
  });
});

describe('invalid_input diagnostics', () => {
  test('SPEC §4 unknown fields are rejected without echoing the key or its value', async () => {
    harness = await connectClient();
    const { payload, text } = await callTool('tradescript_call', call({ sneakyFieldName: 'hunter2-value' }));
    expect(payload.error?.code).toBe('invalid_input');
    expect(payload.error?.retry).toBe('after_correction');
    expect(payload.error?.validation_errors).toEqual([
      { path: [], code: 'unknown_field', message: expect.any(String) as string },
    ]);
    expect(text).not.toContain('sneakyFieldName');
    expect(text).not.toContain('hunter2');
    expect(harness.hub.requests).toHaveLength(0);
  });

  test('SPEC §4 an unknown field inside a nested object points at its nearest known parent', async () => {
    harness = await connectClient();
    const { payload, text } = await callTool(
      'tradescript_call',
      call({ context: { operationId: 'op-1', extraKey: 1 } }),
    );
    expect(payload.error?.validation_errors.map((v) => v.path)).toEqual([['context']]);
    expect(text).not.toContain('extraKey');
  });

  test('SPEC §4 a wrong type names the path and the expected type, never the value', async () => {
    harness = await connectClient();
    const { payload, text } = await callTool('tradescript_call', call({ controlId: 987654321 }));
    expect(payload.error?.validation_errors).toEqual([
      { path: ['controlId'], code: 'invalid_type', message: 'Expected a string.' },
    ]);
    expect(text).not.toContain('987654321');
  });

  test('SPEC §3 a malformed batch entry is one invalid_input with path ["calls",3,"controlId"]; nothing runs', async () => {
    harness = await connectClient();
    const calls = [entry(), entry(), entry(), entry({ controlId: 42 }), entry()];
    const { result, payload } = await callTool('tradescript_batch', { sessionId: 's-1', calls });
    expect(result.isError).toBe(true);
    expect(payload.error?.validation_errors.map((v) => v.path)).toEqual([['calls', 3, 'controlId']]);
    expect(harness.hub.requests).toHaveLength(0);
  });

  test('SPEC §4 more than 20 problems give 20 entries, the last an omission notice', async () => {
    harness = await connectClient();
    const calls = Array.from({ length: 25 }, () => ({ target: chart, controlId: 1 }));
    const { payload } = await callTool('tradescript_batch', { sessionId: 's-1', calls });
    const issues = payload.error?.validation_errors ?? [];
    expect(issues).toHaveLength(20);
    expect(issues[0]?.path).toEqual(['calls', 0, 'controlId']);
    expect(issues[19]).toMatchObject({ path: [], code: 'more_errors' });
  });

  test('SPEC §3 context.origin, when given, must be "mcp"', async () => {
    harness = await connectClient();
    const { payload } = await callTool('tradescript_call', call({ context: { origin: 'other' } }));
    expect(payload.error?.validation_errors.map((v) => v.path)).toEqual([['context', 'origin']]);
  });

  test('SPEC §3 a valid requestId is echoed in meta even when the input is rejected', async () => {
    harness = await connectClient();
    const { payload } = await callTool('tradescript_call', call({ requestId: 'req-7', controlId: 5 }));
    expect(payload.error?.code).toBe('invalid_input');
    expect(payload.meta.requestId).toBe('req-7');
    expect(payload.meta.sessionId).toBeNull();
  });

  test('SPEC §4 every error code built here is a known stable code', async () => {
    harness = await connectClient();
    const { payload } = await callTool('tradescript_get_context', { sessionId: '', target: { scope: 'nope' } });
    expect(ERROR_CODES).toContain(payload.error?.code);
    expect(payload.error?.validation_errors.map((v) => v.path)).toEqual([['sessionId'], ['target', 'scope']]);
  });

  test('SPEC §4 a missing field is reported as required at its own path', async () => {
    harness = await connectClient();
    const { payload } = await callTool('tradescript_get_context', { sessionId: 's-1' });
    expect(payload.error?.validation_errors).toEqual([
      { path: ['target'], code: 'required', message: expect.stringContaining('Required') as string },
    ]);
  });

  test('SPEC §11 logs carry tool, ids and codes, never argument values', async () => {
    harness = await connectClient();
    await callTool('tradescript_call', call({ args: ['ARGUMENT-SECRET-1'], requestId: 'corr-9' }));
    await callTool('tradescript_call', call({ args: ['ARGUMENT-SECRET-2'], unknownKey: 'VALUE-SECRET-3' }));
    const logs = harness.logs.join('\n');
    expect(logs).toContain('tradescript_call');
    expect(logs).toContain('corr-9');
    expect(logs).toContain('invalid_input');
    for (const secret of ['ARGUMENT-SECRET', 'VALUE-SECRET', 'unknownKey']) expect(logs).not.toContain(secret);
  });

  test('SPEC §4 a __proto__ key is rejected at its canonical parent, never stripped or taken as a prototype', async () => {
    harness = await connectClient();
    const inRecord = JSON.parse(
      '{"sessionId":"s-1","target":{"scope":"session"},"controlId":"a.b","expectedRevisions":{"__proto__":{"viewport":1}}}',
    ) as Record<string, unknown>;
    const record = await callTool('tradescript_call', inRecord);
    expect(record.payload.error?.validation_errors).toEqual([
      { path: ['expectedRevisions'], code: 'unknown_field', message: expect.any(String) as string },
    ]);
    const inArgs = JSON.parse(
      '{"sessionId":"s-1","target":{"scope":"session"},"controlId":"a.b","args":[{"opts":{"__proto__":{"confirmed":true}}}]}',
    ) as Record<string, unknown>;
    const args = await callTool('tradescript_call', inArgs);
    expect(args.payload.error?.validation_errors.map((v) => v.path)).toEqual([['args', 0]]);
    expect(args.text).not.toContain('opts');
    expect(harness.hub.requests).toHaveLength(0);
  });
});
