import { afterEach, describe, expect, test } from 'vitest';
import { defaultAnswer } from '../../testing/testHub.js';
import { connectClient, envelopeOf, waitFor, type Harness } from '../../testing/testHarness.js';

let harness: Harness | undefined;
afterEach(async () => {
  await harness?.close();
  harness = undefined;
});

const chart = { scope: 'chart', chartId: 'main' } as const;
const entry = (extra: Record<string, unknown> = {}) => ({
  target: chart,
  controlId: 'chart.setVisibleRange',
  args: [{ from: 1, to: 2 }],
  expectedRevisions: { viewport: 1 },
  ...extra,
});

describe('progress', () => {
  test('SPEC §3 a batch with a progressToken sends notifications/progress after each call', async () => {
    harness = await connectClient();
    harness.hub.responder = (request) => {
      const total = (request.op as { calls: unknown[] }).calls.length;
      for (let done = 1; done <= total; done += 1) request.options.onProgress?.(done, total);
      return defaultAnswer(request);
    };
    const seen: Array<[number, number | undefined]> = [];
    const result = await harness.client.callTool(
      { name: 'tradescript_batch', arguments: { sessionId: 's-1', calls: [entry(), entry(), entry()] } },
      { onprogress: (p) => seen.push([p.progress, p.total]) },
    );
    expect(envelopeOf(result).error).toBeNull();
    await waitFor(() => seen.length === 3, 'three progress notifications');
    expect(seen).toEqual([
      [1, 3],
      [2, 3],
      [3, 3],
    ]);
  });
});
