import { afterEach, describe, expect, it, vi } from 'vitest';
import { FrameBatcher } from './frameBatcher.js';

/** Animation frames run by hand: `frame()` runs the callbacks queued so far. */
function manualFrames(): { frame: () => void; queued: () => number } {
  let callbacks: FrameRequestCallback[] = [];
  vi.stubGlobal('requestAnimationFrame', (callback: FrameRequestCallback) => callbacks.push(callback));
  return {
    frame: () => {
      const now = callbacks;
      callbacks = [];
      for (const callback of now) callback(0);
    },
    queued: () => callbacks.length,
  };
}

describe('FrameBatcher', () => {
  afterEach(() => vi.unstubAllGlobals());

  it('runs the latest task per key once, on one frame', () => {
    const frames = manualFrames();
    const batcher = new FrameBatcher();
    const ran: string[] = [];
    batcher.schedule('a', () => ran.push('a1'));
    batcher.schedule('a', () => ran.push('a2'));
    batcher.schedule('b', () => ran.push('b'));
    expect(frames.queued()).toBe(1);
    frames.frame();
    expect(ran).toEqual(['a2', 'b']);
    expect(frames.queued()).toBe(0);
  });

  it('runs one scheduleAlone task per frame, oldest key first, beside the ordinary ones', () => {
    const frames = manualFrames();
    const batcher = new FrameBatcher();
    const ran: string[] = [];
    batcher.scheduleAlone('chart:main', () => ran.push('main1'));
    batcher.scheduleAlone('chart:alt', () => ran.push('alt'));
    batcher.scheduleAlone('chart:main', () => ran.push('main2'));
    batcher.schedule('views', () => ran.push('views'));
    frames.frame();
    expect(ran).toEqual(['views', 'main2']);
    frames.frame();
    expect(ran).toEqual(['views', 'main2', 'alt']);
    expect(frames.queued()).toBe(0);
  });
});
