import type { ServerEvent, ServerNotifier } from '@modelcontextprotocol/server';
import { describe, expect, it } from 'vitest';
import { PrincipalListenBus } from './listenBus.js';

/** A bus whose current principal the test sets, with each principal's feed recorded. */
function setup() {
  let current = '';
  const feeds = new Map<string, ServerNotifier>();
  const stopped: string[] = [];
  const bus = new PrincipalListenBus(
    () => current,
    (notify) => {
      const principal = current;
      feeds.set(principal, notify);
      return () => {
        stopped.push(principal);
        feeds.delete(principal);
      };
    },
  );
  const listen = (principal: string) => {
    current = principal;
    const heard: ServerEvent[] = [];
    const off = bus.subscribe((event) => heard.push(event));
    return { heard, off };
  };
  return { bus, feeds, stopped, listen };
}

describe('subscriptions/listen streams scoped by principal (SPEC §3, §13, §14)', () => {
  it("a principal's hub events reach its own streams only; the hub is heard from its first stream to its last", () => {
    const { bus, feeds, stopped, listen } = setup();
    const alice1 = listen('alice');
    const alice2 = listen('alice');
    const bob = listen('bob');
    expect([...feeds.keys()]).toEqual(['alice', 'bob']);
    feeds.get('alice')?.resourcesChanged();
    feeds.get('bob')?.resourceUpdated('tradescript://sessions');
    expect(alice1.heard).toEqual([{ kind: 'resources_list_changed' }]);
    expect(alice2.heard).toEqual([{ kind: 'resources_list_changed' }]);
    expect(bob.heard).toEqual([{ kind: 'resource_updated', uri: 'tradescript://sessions' }]);
    alice1.off();
    expect(stopped).toEqual([]);
    alice2.off();
    alice2.off();
    expect(stopped).toEqual(['alice']);
    expect(bus.size).toBe(1);
    bus.close();
    expect(stopped).toEqual(['alice', 'bob']);
  });
});
