import { describe, expect, it } from 'vitest';
import { loadConfig } from './pairing.js';

describe('demo config', () => {
  const origin = 'http://127.0.0.1:7392';

  it('accepts a relay URL from the same origin config', async () => {
    const fetcher = (async (url: URL) => {
      expect(String(url)).toBe(`${origin}/tradescript-config.json`);
      return new Response(JSON.stringify({ relayUrl: 'ws://127.0.0.1:7391/relay', extra: 1 }));
    }) as typeof fetch;
    const result = await loadConfig(origin, fetcher);
    expect(result.ok && result.config.relayUrl).toBe('ws://127.0.0.1:7391/relay');
  });

  it('reports no server when the fetch fails or answers 404, naming the command', async () => {
    const failing = (async () => {
      throw new TypeError('Failed to fetch');
    }) as typeof fetch;
    const missing = (async () => new Response('nope', { status: 404 })) as typeof fetch;
    for (const fetcher of [failing, missing]) {
      const result = await loadConfig(origin, fetcher);
      expect(result.ok).toBe(false);
      if (!result.ok) expect(result.message).toContain('tradescript-mcp demo');
    }
  });

  it('refuses a config whose relay URL is not a WebSocket URL', async () => {
    const fetcher = (async () => new Response(JSON.stringify({ relayUrl: 'http://evil' }))) as typeof fetch;
    expect((await loadConfig(origin, fetcher)).ok).toBe(false);
  });
});
