import { describe, expect, it } from 'vitest';
import type { PageObserveMessage } from '../../protocol/wire/observeLink.js';
import { WorkerClock } from './workerClock.js';
import { ManualClock } from '../testing/manualClock.js';

describe('SPEC §9 the page’s relay timers run on the worker’s clock', () => {
  it('a timer is the worker’s: it runs when the worker says it fell due, once, and a cleared one never runs', () => {
    const posted: PageObserveMessage[] = [];
    const local = new ManualClock();
    const clock = new WorkerClock((message) => posted.push(message) > 0, local);
    const ran: string[] = [];
    const first = clock.setTimeout(() => ran.push('first'), 20_000);
    const second = clock.setTimeout(() => ran.push('second'), 45_000);
    clock.clearTimeout(second);
    expect(posted).toEqual([
      { t: 'timer', id: first, ms: 20_000 },
      { t: 'timer', id: second, ms: 45_000 },
      { t: 'clearTimer', id: second },
    ]);
    local.advance(60_000); // the page's own timers: nothing runs on them
    expect(ran).toEqual([]);
    clock.tick(first as number);
    clock.tick(first as number);
    clock.tick(second as number);
    expect(ran).toEqual(['first']);
  });

  it('with no worker to tell, a timer falls back to the page’s own clock', () => {
    const local = new ManualClock();
    const clock = new WorkerClock(() => false, local);
    local.setTimeout(() => undefined, 10_000); // the page's handles and the clock's ids no longer coincide
    const ran: number[] = [];
    clock.setTimeout(() => ran.push(local.now()), 250);
    const cleared = clock.setTimeout(() => ran.push(-1), 500);
    clock.clearTimeout(cleared);
    local.advance(1_000);
    expect(ran).toEqual([250]);
  });
});
