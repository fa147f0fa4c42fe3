/**
 * perRequestSignalFetch: the SDK's shared AbortSignal gets one listener however
 * many requests run, each request gets its own signal, and aborting the shared
 * one still aborts what is running (not what has finished).
 */
import { getEventListeners } from 'node:events';
import { describe, expect, it } from 'vitest';
import { perRequestSignalFetch, type FetchLike } from './perRequestFetch.js';

/** A base fetch that records the signal each request received. */
function recordingFetch(signals: AbortSignal[], body: () => BodyInit = () => 'ok'): FetchLike {
  return (_url, init) => {
    signals.push(init?.signal as AbortSignal);
    return Promise.resolve(new Response(body()));
  };
}

describe('e2e harness: a fetch with one AbortSignal per request for the Streamable HTTP client', () => {
  it('2,000 requests sharing one signal leave exactly one listener on it', async () => {
    const signals: AbortSignal[] = [];
    const wrapped = perRequestSignalFetch(recordingFetch(signals));
    const shared = new AbortController().signal;
    for (let i = 0; i < 2_000; i += 1) await (await wrapped('http://127.0.0.1/mcp', { signal: shared })).text();
    expect(getEventListeners(shared, 'abort')).toHaveLength(1);
    expect(new Set(signals).size).toBe(2_000);
    expect(signals).not.toContain(shared);
  });

  it('aborting the shared signal aborts a request whose body is still streaming, not finished ones', async () => {
    const signals: AbortSignal[] = [];
    let streaming = false;
    const wrapped = perRequestSignalFetch(
      recordingFetch(signals, () =>
        streaming ? new ReadableStream({ start: (c) => c.enqueue(new Uint8Array([1])) }) : 'done',
      ),
    );
    const shared = new AbortController();
    await (await wrapped('http://127.0.0.1/mcp', { signal: shared.signal })).text();
    streaming = true;
    const open = await wrapped('http://127.0.0.1/mcp', { signal: shared.signal });
    await open.body?.getReader().read();
    shared.abort();
    expect(signals[0]?.aborted).toBe(false);
    expect(signals[1]?.aborted).toBe(true);
    await expect(wrapped('http://127.0.0.1/mcp', { signal: shared.signal })).rejects.toThrow();
  });
});
