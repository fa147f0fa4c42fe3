/**
 * Taking turns: paths open side by side, measured in rounds, each path one
 * turn per round and the order rotating every round, so every path's trials
 * spread over the same minutes and the load and drift of a shared machine fall
 * on all alike (a ratio of two paths is then a ratio of the same minutes).
 *
 * A path may hold a live page (the demo's market ticking): only the path whose
 * turn it is may tick. Before each turn every other live page is paused, and
 * the path's own page, if paused, resumed (its `resume` waits for it to settle).
 */

/**
 * The order of round `round` of `rounds`: `items` rotated by
 * ⌊round × n / rounds⌋, so over the rounds the first slot moves evenly through
 * the list. With `rounds` = n (the default) that is a rotation by one per round.
 * @template T
 * @param {readonly T[]} items
 * @param {number} round
 * @param {number} [rounds]
 * @returns {T[]}
 */
export function turnOrder(items, round, rounds = items.length) {
  const n = items.length;
  if (n === 0) return [];
  const offset = Math.floor((round * n) / Math.max(1, rounds)) % n;
  return items.map((_, i) => /** @type {T} */ (items[(i + offset) % n]));
}

/**
 * @template P
 * @typedef {object} TurnSteps
 * @property {number} rounds
 * @property {(path: P) => boolean} live the path holds a page that ticks once opened
 * @property {(path: P) => Promise<void>} pause stops the path's page ticking
 * @property {(path: P) => Promise<void>} resume restarts it and waits until it has settled
 * @property {(path: P) => Promise<void>} warm the path's warm-up (its turn conditions already set)
 * @property {(path: P, round: number, slot: number) => Promise<void>} turn one trial of the path
 * @property {(path: P, error: unknown) => void} [failed] a step of the path threw: it takes no further turns
 */

/**
 * Warms every path up, in list order, then runs `steps.rounds` rounds in
 * {@link turnOrder}. Before each warm-up and turn, only that path's page (if
 * it is live) ticks. Every live path is taken to tick when this starts.
 * Answers the order of each round (ids as given).
 * @template P
 * @param {readonly P[]} paths
 * @param {TurnSteps<P>} steps
 * @returns {Promise<P[][]>}
 */
export async function takeTurns(paths, steps) {
  const ticking = new Set(paths.filter((p) => steps.live(p)));
  const out = new Set();
  const guarded = async (path, step) => {
    try {
      await step();
    } catch (error) {
      out.add(path);
      steps.failed?.(path, error);
    }
  };
  /** Pauses every other ticking page, then resumes this path's own if it is live. */
  const enter = async (path) => {
    for (const other of [...ticking]) {
      if (other === path) continue;
      ticking.delete(other);
      await guarded(other, () => steps.pause(other));
    }
    if (steps.live(path) && !ticking.has(path)) {
      ticking.add(path);
      await guarded(path, () => steps.resume(path));
    }
  };
  for (const path of paths) {
    await enter(path);
    if (!out.has(path)) await guarded(path, () => steps.warm(path));
  }
  const orders = [];
  for (let round = 0; round < steps.rounds; round++) {
    const order = turnOrder(paths, round, steps.rounds).filter((p) => !out.has(p));
    orders.push(order);
    for (const [slot, path] of order.entries()) {
      if (out.has(path)) continue;
      await enter(path);
      if (!out.has(path)) await guarded(path, () => steps.turn(path, round, slot));
    }
  }
  return orders;
}
