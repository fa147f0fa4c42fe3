import { describe, expect, it } from 'vitest';
import { EVENT_BATCH_DELAY_MS, EVENT_BATCH_SIZE, EventBatcher, type EventPortMessage } from './eventBatch.js';
import { HostLinkAnswerSchema } from '../../protocol/wire/hostLink.js';

/** What the bridge's end of the host-call link reads from the page (null: refused). */
function readEventPortMessage(data: unknown) {
  const parsed = HostLinkAnswerSchema.safeParse(data);
  return parsed.success ? parsed.data : null;
}

/** A port that records messages and a scheduler the test runs by hand. */
function harness() {
  const posted: EventPortMessage[] = [];
  const timers: Array<{ flush: () => void; delay: number }> = [];
  const port = {
    postMessage(message: EventPortMessage) {
      structuredClone(message); // what a real port does first, DataCloneError included
      posted.push(message);
    },
  };
  const batcher = new EventBatcher(port, (flush, delay) => timers.push({ flush, delay }));
  return { posted, timers, batcher };
}

describe('SPEC §7 §12 the page batches binding events instead of posting each', () => {
  it('many events in one task travel as one message per 512, the rest after the short delay', () => {
    const { posted, timers, batcher } = harness();
    const sink = batcher.sink(7);
    for (let i = 0; i < EVENT_BATCH_SIZE * 2 + 3; i++) sink({ bindingId: 'b', payload: i });
    expect(posted.map((m) => (m.t === 'events' ? m.h.length : 0))).toEqual([EVENT_BATCH_SIZE, EVENT_BATCH_SIZE]);
    expect(timers.map((t) => t.delay)).toEqual([EVENT_BATCH_DELAY_MS]);
    timers[0]?.flush();
    expect(posted.at(-1)).toEqual({ t: 'events', h: [7, 7, 7], p: [1024, 1025, 1026] });
  });

  it('a dropped projection travels as the negated handle without a payload', () => {
    const { posted, batcher } = harness();
    batcher.sink(3)({ bindingId: 'b', dropped: 'invalid' });
    batcher.sink(4)({ bindingId: 'c', payload: 'ok' });
    batcher.flush();
    expect(posted).toEqual([{ t: 'events', h: [-3, 4], p: [undefined, 'ok'] }]);
  });

  it('a payload that cannot be cloned becomes a dropped marker; the rest of the batch still arrives', () => {
    const { posted, batcher } = harness();
    batcher.sink(1)({ bindingId: 'b', payload: { fine: true } });
    batcher.sink(1)({ bindingId: 'b', payload: { fn: () => 1 } });
    batcher.flush();
    expect(posted).toEqual([{ t: 'events', h: [1, -1], p: [{ fine: true }, undefined] }]);
  });

  it('a control message goes after everything queued before it', () => {
    const { posted, batcher } = harness();
    batcher.sink(2)({ bindingId: 'b', payload: 'before' });
    batcher.control({ t: 'targetUnregistered', target: { scope: 'chart', chartId: 'c' } });
    expect(posted.map((m) => m.t)).toEqual(['events', 'targetUnregistered']);
  });

  it('the worker reads only well-formed messages', () => {
    expect(readEventPortMessage({ t: 'events', h: [1], p: [] })).toBeNull();
    expect(readEventPortMessage({ t: 'targetUnregistered', target: { scope: 'chart' } })).toBeNull();
    expect(readEventPortMessage('events')).toBeNull();
    expect(readEventPortMessage({ t: 'targetUnregistered', target: { scope: 'widget', widgetId: 'w' } })).toEqual({
      t: 'targetUnregistered',
      target: { scope: 'widget', widgetId: 'w' },
    });
  });
});
