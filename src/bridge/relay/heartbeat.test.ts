import { describe, expect, it } from 'vitest';
import { Heartbeat } from './heartbeat.js';
import { ManualClock } from '../testing/manualClock.js';

function setup(silenceMs = 45_000) {
  const clock = new ManualClock();
  const pings: number[] = [];
  let silent = 0;
  const heartbeat = new Heartbeat(clock, silenceMs, { sendPing: (n) => pings.push(n), onSilent: () => silent++ });
  return { clock, pings, heartbeat, silent: () => silent };
}

describe('SPEC §9 heartbeat', () => {
  it('declares a socket dead after the silence timeout with nothing received', () => {
    const { clock, silent } = setup(45_000);
    clock.advance(44_999);
    expect(silent()).toBe(0);
    clock.advance(1);
    expect(silent()).toBe(1);
  });

  it('anything received restarts the silence window', () => {
    const { clock, heartbeat, silent } = setup(45_000);
    clock.advance(40_000);
    heartbeat.activity();
    clock.advance(40_000);
    expect(silent()).toBe(0);
    clock.advance(5_000);
    expect(silent()).toBe(1);
  });

  it('pings at the interval with increasing numbers, and stop() ends every timer', () => {
    const { clock, heartbeat, pings, silent } = setup(45_000);
    heartbeat.startPinging(20_000);
    heartbeat.activity();
    clock.advance(20_000);
    heartbeat.activity();
    clock.advance(20_000);
    expect(pings).toEqual([0, 1]);
    heartbeat.stop();
    clock.advance(200_000);
    expect(pings).toEqual([0, 1]);
    expect(silent()).toBe(0);
    expect(clock.waiting).toBe(0);
  });

  it('fires onSilent once and stops pinging after it', () => {
    const { clock, heartbeat, pings, silent } = setup(1_000);
    heartbeat.startPinging(400);
    clock.advance(10_000);
    expect(silent()).toBe(1);
    expect(pings).toEqual([0, 1]);
  });
});
