import { describe, expect, it } from 'vitest';
import { takeTurns, turnOrder } from './turns.mjs';

/** Paths with pages that keep their own ticking state, and a log of what ticked during every step. */
function bench(ids, liveIds, { failTurn } = {}) {
  const paths = ids.map((id) => ({ id, live: liveIds.includes(id) }));
  const ticking = new Map(paths.filter((p) => p.live).map((p) => [p.id, true]));
  const log = [];
  const tickingNow = () => [...ticking].filter(([, on]) => on).map(([id]) => id);
  const failed = [];
  const steps = {
    rounds: 5,
    live: (p) => p.live,
    pause: async (p) => void ticking.set(p.id, false),
    resume: async (p) => void ticking.set(p.id, true),
    warm: async (p) => void log.push({ step: 'warm', id: p.id, ticking: tickingNow() }),
    turn: async (p, round, slot) => {
      if (failTurn?.(p, round)) throw new Error(`${p.id} broke`);
      log.push({ step: 'turn', id: p.id, round, slot, ticking: tickingNow() });
    },
    failed: (p, error) => failed.push([p.id, error.message]),
  };
  return { paths, steps, log, failed, ticking };
}

describe('turnOrder (bench/lib/turns.mjs)', () => {
  it('rotates by one each round when there are as many rounds as items (bench/callFloorAB.mjs)', () => {
    const items = ['a', 'b', 'c', 'd'];
    expect([0, 1, 2, 3, 4].map((r) => turnOrder(items, r).join(''))).toEqual(['abcd', 'bcda', 'cdab', 'dabc', 'abcd']);
  });

  it('spreads the first slot evenly over the list when rounds are fewer than items (table 1)', () => {
    const items = Array.from({ length: 12 }, (_, i) => i);
    const orders = [0, 1, 2, 3, 4].map((r) => turnOrder(items, r, 5));
    expect(orders.map((o) => o[0])).toEqual([0, 2, 4, 7, 9]);
    for (const order of orders) expect([...order].sort((x, y) => x - y)).toEqual(items);
  });
});

describe('takeTurns: SPEC §12 table 1 paths measured side by side', () => {
  it('gives every path one turn per round, round after round, in the rotating order', async () => {
    const b = bench(['floor', 'sdk', 'peer', 'stdio', 'http', 'http2026'], ['stdio', 'http', 'http2026']);
    const orders = await takeTurns(b.paths, b.steps);
    const turns = b.log.filter((e) => e.step === 'turn');
    expect(turns).toHaveLength(5 * 6);
    for (let round = 0; round < 5; round++) {
      const ofRound = turns.slice(round * 6, round * 6 + 6);
      expect(ofRound.every((t) => t.round === round)).toBe(true);
      expect(ofRound.map((t) => t.id)).toEqual(turnOrder(b.paths, round, 5).map((p) => p.id));
      expect(orders[round]?.map((p) => p.id)).toEqual(ofRound.map((t) => t.id));
    }
    // Every path warms up once, before any turn.
    expect(b.log.slice(0, 6).map((e) => `${e.step}:${e.id}`)).toEqual(b.paths.map((p) => `warm:${p.id}`));
  });

  it('lets only the path on turn tick: anchors see no live page, a demo sees only its own', async () => {
    const b = bench(['floor', 'stdio', 'sdk', 'http', 'peer', 'http2026'], ['stdio', 'http', 'http2026']);
    await takeTurns(b.paths, b.steps);
    for (const entry of b.log) {
      const live = b.paths.find((p) => p.id === entry.id)?.live;
      expect({ ...entry, ticking: entry.ticking }).toEqual({ ...entry, ticking: live ? [entry.id] : [] });
    }
  });

  it('drops a path whose turn fails from later rounds and keeps measuring the others', async () => {
    const b = bench(['floor', 'stdio', 'sdk'], ['stdio'], { failTurn: (p, round) => p.id === 'stdio' && round === 1 });
    await takeTurns(b.paths, b.steps);
    const turns = b.log.filter((e) => e.step === 'turn');
    expect(turns.filter((t) => t.id === 'stdio').map((t) => t.round)).toEqual([0]);
    expect(turns.filter((t) => t.id === 'floor')).toHaveLength(5);
    expect(b.failed).toEqual([['stdio', 'stdio broke']]);
  });
});
