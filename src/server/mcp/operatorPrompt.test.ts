import { ProtocolError as McpError } from '@modelcontextprotocol/client';
import { afterEach, describe, expect, test } from 'vitest';
import { OPERATOR_PROMPT, SESSIONS_URI } from '../../protocol/index.js';
import { connectClient, type Harness } from '../testing/testHarness.js';

let harness: Harness | undefined;
afterEach(async () => {
  await harness?.close();
  harness = undefined;
});

describe('prompt', () => {
  test('SPEC §3 prompts/list shows tradescript_operator', async () => {
    harness = await connectClient();
    const { prompts } = await harness.client.listPrompts();
    expect(prompts.map((p) => p.name)).toEqual([OPERATOR_PROMPT]);
  });

  test('SPEC §3 the operator prompt teaches discovery-first routing, conflict recovery and rendered verification', async () => {
    harness = await connectClient();
    const { messages } = await harness.client.getPrompt({ name: OPERATOR_PROMPT });
    expect(messages).toHaveLength(1);
    const content = messages[0]?.content;
    const text = content?.type === 'text' ? content.text : '';
    const order = [SESSIONS_URI, 'tradescript_get_context', 'tradescript_list_controls', 'tradescript_call'].map((s) =>
      text.indexOf(s),
    );
    expect(order.every((i) => i >= 0)).toBe(true);
    expect([...order].sort((a, b) => a - b)).toEqual(order);
    expect(text).toContain('revision_conflict');
    expect(text).toMatch(/never resend the stale call/i);
    expect(text).toContain('uncertain_execution');
    expect(text).toContain('tradescript_snapshot');
    expect(text).toMatch(/grants no access/i);
  });

  test('SPEC §3 an unknown prompt is a JSON-RPC error', async () => {
    harness = await connectClient();
    const error = await harness.client.getPrompt({ name: 'other' }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(McpError);
  });
});
