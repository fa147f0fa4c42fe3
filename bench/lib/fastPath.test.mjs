import { describe, expect, it } from 'vitest';
import { rateGate, whyNotFastPath } from './fastPath.mjs';

describe('whyNotFastPath: SPEC §8 the extension row counts only visible-tab captures', () => {
  it('accepts a row in which the page never captured itself', () => {
    expect(whyNotFastPath({ captures: 11, sdkCaptures: 0 })).toBeNull();
  });

  it('refuses a row in which the page captured even once, saying how often and why', () => {
    expect(whyNotFastPath({ captures: 11, sdkCaptures: 1, diagnosis: 'quota' })).toBe(
      "the page's own capture served 1 of 11 snapshots, not the visible tab (quota)",
    );
    expect(whyNotFastPath({ captures: 11, sdkCaptures: 11 })).toBe(
      "the page's own capture served all 11 snapshots, not the visible tab",
    );
  });

  it('refuses a row with no capture or an unreadable count', () => {
    expect(whyNotFastPath({ captures: 0, sdkCaptures: 0 })).toBe('no snapshot ran');
    expect(whyNotFastPath({ captures: 5, sdkCaptures: undefined })).toMatch(/unreadable/);
    expect(whyNotFastPath({ captures: 5, sdkCaptures: -1 })).toMatch(/unreadable/);
  });
});

describe('rateGate: captureVisibleTab calls kept under Chromium’s quota', () => {
  /** A clock that only moves when the gate sleeps, or when the test moves it. */
  function fakeClock() {
    const clock = { t: 1000, slept: [] };
    clock.now = () => clock.t;
    clock.sleep = async (ms) => {
      clock.slept.push(ms);
      clock.t += ms;
    };
    return clock;
  }

  it('lets the first start go at once and spaces the next ones by the gap from the previous start', async () => {
    const clock = fakeClock();
    const gate = rateGate(2, { marginMs: 100, now: clock.now, sleep: clock.sleep });
    expect(gate.gapMs).toBe(600);
    const starts = [];
    for (let i = 0; i < 3; i++) {
      await gate.wait();
      starts.push(clock.t);
      clock.t += 150; // the capture itself
    }
    expect(starts).toEqual([1000, 1600, 2200]);
    expect(clock.slept).toEqual([450, 450]);
  });

  it('does not wait when the previous start is longer ago than the gap', async () => {
    const clock = fakeClock();
    const gate = rateGate(2, { now: clock.now, sleep: clock.sleep });
    await gate.wait();
    clock.t += 900;
    await gate.wait();
    expect(clock.slept).toEqual([]);
  });
});
