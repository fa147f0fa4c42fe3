/**
 * Tells a person's scroll and zoom of a chart apart from programmatic range
 * changes (a control applying a range, new bars arriving): only the first
 * should bump the chart's `viewport` revision.
 */

/** How long after the last wheel or pointer release a range change still counts as the person's. */
const GESTURE_WINDOW_MS = 400;
/** One bump per gesture, not one per frame of a drag. */
const DEBOUNCE_MS = 250;

/** Follows gestures on a chart's element. */
export class GestureTracker {
  private pointerDown = false;
  private lastGestureAt = -Infinity;
  private timer: ReturnType<typeof setTimeout> | undefined;
  private readonly disposers: Array<() => void> = [];

  /** `onUserChange` runs once, debounced, after the person changed the visible range. */
  constructor(
    element: HTMLElement,
    private readonly onUserChange: () => void,
    private readonly now: () => number = () => performance.now(),
  ) {
    const mark = (): void => {
      this.lastGestureAt = this.now();
    };
    const down = (): void => {
      this.pointerDown = true;
      mark();
    };
    const up = (): void => {
      if (!this.pointerDown) return;
      this.pointerDown = false;
      mark();
    };
    this.listen(element, 'pointerdown', down);
    this.listen(element, 'wheel', mark);
    this.listen(element, 'dblclick', mark);
    this.listen(window, 'pointerup', up);
    this.listen(window, 'pointercancel', up);
  }

  /** Call on every visible range change; counts it when a gesture is under way. */
  rangeChanged(): void {
    if (!this.pointerDown && this.now() - this.lastGestureAt > GESTURE_WINDOW_MS) return;
    if (this.timer !== undefined) clearTimeout(this.timer);
    this.timer = setTimeout(() => {
      this.timer = undefined;
      this.onUserChange();
    }, DEBOUNCE_MS);
  }

  /** Stops listening. */
  dispose(): void {
    if (this.timer !== undefined) clearTimeout(this.timer);
    for (const dispose of this.disposers.splice(0)) dispose();
  }

  private listen(target: EventTarget, type: string, handler: () => void): void {
    target.addEventListener(type, handler, { passive: true, capture: true });
    this.disposers.push(() => target.removeEventListener(type, handler, { capture: true }));
  }
}
