import { describe, expect, it } from 'vitest';
import type { HubPort } from '../hub/hubPort.js';
import { DeferredHubPort } from './deferredHub.js';

/** A hub port that lists one session and counts its calls. */
function fakeHub(): HubPort & { calls: number } {
  const hub = {
    calls: 0,
    listSessions: async () => {
      hub.calls++;
      return [{ sessionId: 's1' }];
    },
    on: () => () => undefined,
  };
  return hub as unknown as HubPort & { calls: number };
}

describe('the hub port MCP gets before the hub loads (SPEC §12: the hub loads with its first use)', () => {
  it('a call made before the hub is there says it is wanted, waits, and is answered by the hub', async () => {
    const port = new DeferredHubPort();
    let wanted = false;
    void port.wanted.then(() => (wanted = true));
    await Promise.resolve();
    expect(wanted).toBe(false);
    const listed = port.listSessions();
    await port.wanted;
    expect(wanted).toBe(true);
    const hub = fakeHub();
    port.use(hub);
    expect(await listed).toEqual([{ sessionId: 's1' }]);
    expect(hub.calls).toBe(1);
  });

  it('a hub that cannot load fails the waiting call and later ones with its reason', async () => {
    const port = new DeferredHubPort();
    const waiting = port.listSessions();
    port.fail(new Error('the hub could not load: disk gone'));
    await expect(waiting).rejects.toThrow('the hub could not load: disk gone');
    await expect(port.catalog(1_000)).rejects.toThrow('the hub could not load: disk gone');
  });
});
