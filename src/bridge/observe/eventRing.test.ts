import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { EventRing, type RingRead } from './eventRing.js';

type Command =
  { kind: 'emit'; binding: number } | { kind: 'drop' } | { kind: 'poll'; after: number | undefined; limit: number };

const command: fc.Arbitrary<Command> = fc.oneof(
  { weight: 5, arbitrary: fc.record({ kind: fc.constant('emit' as const), binding: fc.integer({ min: 0, max: 3 }) }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('drop' as const) }) },
  {
    weight: 2,
    arbitrary: fc.record({
      kind: fc.constant('poll' as const),
      after: fc.option(fc.integer({ min: 0, max: 60 }), { nil: undefined }),
      limit: fc.integer({ min: 1, max: 12 }),
    }),
  },
);

/** The model: every sequence ever assigned, and whether it was a real event. */
interface Assigned {
  sequence: number;
  event: boolean;
  binding: number;
}

/** Checks one poll against the model; returns nothing, throws on a broken property. */
function checkPoll(
  read: RingRead,
  model: Assigned[],
  capacity: number,
  after: number | undefined,
  limit: number,
): void {
  const last = model.length;
  const retained = new Set(
    model
      .slice(Math.max(0, last - capacity))
      .filter((a) => a.event)
      .map((a) => a.sequence),
  );
  const from = after ?? 0;
  const returned = read.events.map((e) => e.sequence);
  // (a) strictly increasing, all after the cursor, all really retained events, none beyond lastSequence.
  returned.forEach((s, i) => expect(i === 0 || s > (returned[i - 1] ?? 0)).toBe(true));
  returned.forEach((s) => expect(s > from && s <= last && retained.has(s)).toBe(true));
  read.events.forEach((e) => expect(e.bindingIndex).toBe(model[e.sequence - 1]?.binding));
  expect(read.lastSequence).toBe(last);
  // Completeness: the first `limit` retained events after the cursor, no more, no fewer.
  const expected = [...retained].filter((s) => s > from).slice(0, limit);
  expect(returned).toEqual(expected);
  // (b) the window ends at the last returned event, or at lastSequence when none is returned.
  const end = returned.at(-1) ?? last;
  const missing: number[] = [];
  for (let s = from + 1; s <= end; s++) if (!returned.includes(s)) missing.push(s);
  missing.forEach((s) => expect(retained.has(s)).toBe(false)); // every gap really was dropped
  expect(read.droppedCount).toBe(missing.length);
  expect(read.droppedBeforeSequence).toBe(missing.length > 0 ? (missing.at(-1) ?? 0) + 1 : null);
}

describe('SPEC §7 ring buffer, sequences and drop accounting', () => {
  it('for random emits, drops, evictions and polls: sequences increase, drop counts are exact, polls consume nothing', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 8 }), fc.array(command, { maxLength: 80 }), (capacity, commands) => {
        const ring = new EventRing(capacity);
        const model: Assigned[] = [];
        for (const cmd of commands) {
          if (cmd.kind === 'emit') {
            ring.push(cmd.binding, { n: model.length + 1 }, 1000 + model.length);
            model.push({ sequence: model.length + 1, event: true, binding: cmd.binding });
          } else if (cmd.kind === 'drop') {
            ring.drop();
            model.push({ sequence: model.length + 1, event: false, binding: -1 });
          } else {
            const first = ring.read(cmd.after, cmd.limit);
            checkPoll(first, model, capacity, cmd.after, cmd.limit);
            // (c) polls consume nothing: the same poll again reads the same.
            expect(ring.read(cmd.after, cmd.limit)).toEqual(first);
          }
        }
        const retainedEvents = model.slice(Math.max(0, model.length - capacity)).filter((a) => a.event).length;
        expect(ring.droppedTotal).toBe(model.length - retainedEvents);
      }),
      { numRuns: 400 },
    );
  });

  it('a reader continuing after the last event it saw (or droppedBeforeSequence - 1) counts every sequence exactly once', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 8 }),
        fc.array(fc.constantFrom('emit', 'drop', 'page'), { maxLength: 120 }),
        fc.integer({ min: 1, max: 5 }),
        (capacity, steps, limit) => {
          const ring = new EventRing(capacity);
          let cursor = 0;
          let seen = 0;
          const page = (): void => {
            const read = ring.read(cursor, limit);
            seen += read.events.length + read.droppedCount;
            cursor =
              read.events.at(-1)?.sequence ??
              (read.droppedBeforeSequence === null ? cursor : read.droppedBeforeSequence - 1);
          };
          for (const step of steps) {
            if (step === 'emit') ring.push(0, null, 0);
            else if (step === 'drop') ring.drop();
            else page();
          }
          for (let guard = 0; cursor < ring.lastSequence && guard < 1000; guard++) page();
          expect(seen).toBe(ring.lastSequence);
        },
      ),
      { numRuns: 300 },
    );
  });

  it('a restored ring continues the numbering and reports everything before as dropped', () => {
    const ring = new EventRing(4, 10);
    expect(ring.read(6, 100)).toEqual({ events: [], lastSequence: 10, droppedBeforeSequence: 11, droppedCount: 4 });
    ring.push(0, 'x', 5);
    expect(ring.read(10, 100).events).toEqual([{ sequence: 11, bindingIndex: 0, receivedAtMs: 5, payload: 'x' }]);
  });

  it('a cursor past lastSequence reads nothing and reports no drop', () => {
    const ring = new EventRing(2);
    ring.drop();
    expect(ring.read(5, 10)).toEqual({ events: [], lastSequence: 1, droppedBeforeSequence: null, droppedCount: 0 });
  });
});
