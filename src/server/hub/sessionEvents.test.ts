import { afterEach, describe, expect, it, vi } from 'vitest';
import { createLogger } from '../log.js';
import { HubEmitter } from './emitter.js';
import { Hub } from './hub.js';
import { openScriptedTab, testAuthenticator } from '../testing/scriptedTab.js';
import { SessionEvents } from './sessionEvents.js';

afterEach(() => {
  vi.useRealTimers();
});

describe('SPEC §3 session events are coalesced at their source: at most one per 250 ms', () => {
  it('SPEC §3 a flood of 1,000 session.update frames in one second becomes at most 5 events, the last change included', async () => {
    vi.useFakeTimers();
    const hub = new Hub({ auth: testAuthenticator(), logger: createLogger('silent'), serverVersion: 't' });
    const tab = await openScriptedTab(hub);
    await vi.advanceTimersByTimeAsync(1_000);
    const seen: Array<[string, number]> = [];
    hub.on('sessionsChanged', () => seen.push(['changed', Date.now()]));
    hub.on('sessionUpdated', () => seen.push(['updated', Date.now()]));
    const start = Date.now();
    for (let i = 0; i < 1_000; i += 1) {
      tab.client.send({ t: 'session.update', sessionId: tab.sessionId, info: { title: `t${i}` } });
      await vi.advanceTimersByTimeAsync(1);
    }
    await vi.advanceTimersByTimeAsync(500);
    expect(seen.length).toBeGreaterThanOrEqual(4);
    expect(seen.length).toBeLessThanOrEqual(5);
    for (let i = 1; i < seen.length; i += 1) expect(seen[i]![1] - seen[i - 1]![1]).toBeGreaterThanOrEqual(250);
    expect(seen.at(-1)![1]).toBeGreaterThan(start + 999);
    expect((await hub.listSessions())[0]?.title).toBe('t999');
    hub.close();
  });

  it('SPEC §3 a pairing or closing in the interval goes out as sessionsChanged, which implies the update', () => {
    vi.useFakeTimers();
    const emitter = new HubEmitter();
    const seen: string[] = [];
    emitter.on('sessionsChanged', () => seen.push('changed'));
    emitter.on('sessionUpdated', (id) => seen.push(`updated:${id}`));
    const events = new SessionEvents(emitter, () => Date.now());
    events.updated('s_1');
    expect(seen).toEqual(['updated:s_1']);
    events.updated('s_2');
    events.changed();
    events.updated('s_3');
    expect(seen).toEqual(['updated:s_1']);
    vi.advanceTimersByTime(250);
    expect(seen).toEqual(['updated:s_1', 'changed']);
    vi.advanceTimersByTime(1_000);
    events.updated('s_4');
    expect(seen).toEqual(['updated:s_1', 'changed', 'updated:s_4']);
  });
});
