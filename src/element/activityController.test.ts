import type { ReactiveController, ReactiveControllerHost } from 'lit';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { ActivityEntry, TerminalHost } from '../sdk/types.js';
import { ActivityController, FEED_BURST_RENDER_MS, FEED_BURST_ROWS, FEED_RENDER_MS } from './activityController.js';
import { ACTIVITY_CAPACITY } from './activityStore.js';

/**
 * The controller in Node with fake timers: the element is a stand-in that
 * counts update requests (each one a render of the feed), the page's
 * visibility and the element's intersection are driven by the test. No
 * IndexedDB here: the store's writes fail and the feed stays in memory, as
 * the store promises.
 */
interface Rig {
  controller: ActivityController;
  renders: () => number;
  emit: (count: number) => void;
  setInView: (inView: boolean) => void;
  setTabHidden: (hidden: boolean) => void;
}

let seq = 0;
const entry = (): ActivityEntry => ({
  at: new Date().toISOString(),
  controlId: `desk.echo${(seq += 1)}`,
  target: { scope: 'session' },
  clientName: 'test',
  outcome: 'ok',
  durationMs: 1,
});

async function rig(): Promise<Rig> {
  const page = new EventTarget() as EventTarget & { visibilityState: DocumentVisibilityState };
  page.visibilityState = 'visible';
  let sight: IntersectionObserverCallback | null = null;
  vi.stubGlobal('document', page);
  vi.stubGlobal('addEventListener', () => undefined);
  vi.stubGlobal('removeEventListener', () => undefined);
  vi.stubGlobal(
    'IntersectionObserver',
    class {
      constructor(callback: IntersectionObserverCallback) {
        sight = callback;
      }
      observe(): void {}
      disconnect(): void {}
    },
  );
  let updates = 0;
  const element = {
    addController: (_: ReactiveController) => undefined,
    requestUpdate: () => void (updates += 1),
  } as unknown as ReactiveControllerHost & HTMLElement;
  const listeners: Array<(e: ActivityEntry) => void> = [];
  const terminal = {
    onActivity: (listener: (e: ActivityEntry) => void) => {
      listeners.push(listener);
      return () => listeners.splice(listeners.indexOf(listener), 1);
    },
  } as unknown as TerminalHost;
  const controller = new ActivityController(element);
  controller.hostConnected();
  controller.follow(terminal);
  // The kept rows load (none here) and render once.
  await vi.advanceTimersByTimeAsync(0);
  const base = updates;
  return {
    controller,
    renders: () => updates - base,
    emit: (count) => {
      for (let i = 0; i < count; i++) for (const listener of listeners) listener(entry());
    },
    setInView: (inView) =>
      sight?.([{ isIntersecting: inView } as IntersectionObserverEntry], {} as IntersectionObserver),
    setTabHidden: (hidden) => {
      page.visibilityState = hidden ? 'hidden' : 'visible';
      page.dispatchEvent(new Event('visibilitychange'));
    },
  };
}

beforeEach(() => {
  vi.useFakeTimers();
});
afterEach(() => {
  vi.useRealTimers();
  vi.unstubAllGlobals();
});

describe('activity feed rendering (SPEC §10, issue 15)', () => {
  it('renders the first entry after a quiet spell on the next task; a burst makes the next render wait the burst interval', async () => {
    const { controller, renders, emit } = await rig();
    emit(1);
    expect(renders()).toBe(0);
    await vi.advanceTimersByTimeAsync(0);
    expect(renders()).toBe(1);
    expect(controller.entries).toHaveLength(1);

    emit(FEED_BURST_ROWS);
    await vi.advanceTimersByTimeAsync(FEED_RENDER_MS);
    expect(renders()).toBe(2);
    expect(controller.entries).toHaveLength(1 + FEED_BURST_ROWS);

    // After a render of a burst's rows, the next waits FEED_BURST_RENDER_MS, however many arrive.
    emit(5);
    await vi.advanceTimersByTimeAsync(FEED_BURST_RENDER_MS - 1);
    expect(renders()).toBe(2);
    await vi.advanceTimersByTimeAsync(1);
    expect(renders()).toBe(3);
    const shown = controller.entries;
    expect(shown).toHaveLength(6 + FEED_BURST_ROWS);

    // A render of few rows brings the ordinary interval back.
    emit(1);
    await vi.advanceTimersByTimeAsync(FEED_RENDER_MS);
    expect(renders()).toBe(4);
    expect(controller.entries[0]?.controlId).toBe(`desk.echo${seq}`);
  });

  it('out of sight: entries are kept and nothing renders; back in sight: one render, newest first, bounded', async () => {
    const { controller, renders, emit, setInView } = await rig();
    setInView(false);
    emit(ACTIVITY_CAPACITY + 50);
    await vi.advanceTimersByTimeAsync(5_000);
    expect(renders()).toBe(0);
    setInView(true);
    await vi.advanceTimersByTimeAsync(0);
    expect(renders()).toBe(1);
    const shown = controller.entries;
    expect(shown).toHaveLength(ACTIVITY_CAPACITY);
    const ids = shown.map((e) => Number(e.controlId.replace('desk.echo', '')));
    expect(ids).toEqual(Array.from({ length: ACTIVITY_CAPACITY }, (_, i) => seq - i));
    await vi.advanceTimersByTimeAsync(5_000);
    expect(renders()).toBe(1);
  });

  it('a hidden tab renders nothing per call; shown again, it renders once', async () => {
    const { controller, renders, emit, setTabHidden } = await rig();
    setTabHidden(true);
    emit(3);
    await vi.advanceTimersByTimeAsync(1_000);
    expect(renders()).toBe(0);
    setTabHidden(false);
    await vi.advanceTimersByTimeAsync(0);
    expect(renders()).toBe(1);
    expect(controller.entries.map((e) => e.controlId)).toEqual([
      `desk.echo${seq}`,
      `desk.echo${seq - 1}`,
      `desk.echo${seq - 2}`,
    ]);
  });

  it('hidden while a render waits: the render is dropped, and showing renders what arrived', async () => {
    const { controller, renders, emit, setInView } = await rig();
    emit(1);
    setInView(false);
    await vi.advanceTimersByTimeAsync(1_000);
    expect(renders()).toBe(0);
    setInView(true);
    await vi.advanceTimersByTimeAsync(0);
    expect(renders()).toBe(1);
    expect(controller.entries).toHaveLength(1);
  });
});
