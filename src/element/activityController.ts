/**
 * Keeps the element's feed: listens to `host.onActivity` while the element is
 * in the page, writes each entry to IndexedDB, and loads this tab's kept
 * entries once, so the feed survives a reload.
 *
 * An entry arrives while its call's answer is still on its way out of the page
 * (the SDK reports it just before returning the outcome). Rendering the feed
 * then would run in the microtask ahead of the answer: measured through a
 * vendor's page, it cost a trivial read about 5 ms of its ~8 ms round trip.
 * So entries are shown on a later task, at most once per
 * {@link FEED_RENDER_MS} (a burst of calls renders once); the first entry after
 * a quiet spell shows on the next task. While calls stream faster than a person
 * can read rows (a render showing {@link FEED_BURST_ROWS} or more new rows), the
 * next render waits {@link FEED_BURST_RENDER_MS}: each render re-lays out the
 * feed, which cost a vendor's page about 20 ms of style, layout and paint 10
 * times a second under a burst (issue 15).
 *
 * While nobody can see the element (out of the viewport, `display: none`, in
 * a closed panel, or the tab hidden) entries are kept as data only and
 * nothing renders; the feed renders once when the element shows again, with
 * the same rows.
 */
import type { ReactiveController, ReactiveControllerHost } from 'lit';
import type { ActivityEntry, TerminalHost } from '../sdk/types.js';
import { ACTIVITY_CAPACITY, ActivityStore } from './activityStore.js';
import { tabId } from './tabStorage.js';

/** Shortest time between two feed renders caused by new entries. */
export const FEED_RENDER_MS = 100;
/** Shortest time between two feed renders during a burst of calls. */
export const FEED_BURST_RENDER_MS = 1_000;
/** New rows in one render that make the next render wait {@link FEED_BURST_RENDER_MS}. */
export const FEED_BURST_ROWS = 20;

/** The feed's entries, newest first. */
export class ActivityController implements ReactiveController {
  private shown: readonly ActivityEntry[] = [];
  /** Entries that came since `entries` was last read, oldest first (no copy of the feed per call). */
  private arrived: ActivityEntry[] = [];
  private terminal: TerminalHost | null = null;
  private off: (() => void) | null = null;
  private store: ActivityStore | null = null;
  private connected = false;
  private renderTimer: ReturnType<typeof setTimeout> | null = null;
  private lastRender = Number.NEGATIVE_INFINITY;
  private renderGap = FEED_RENDER_MS;
  /** Whether the element is in the viewport (until the observer says otherwise: it is). */
  private inView = true;
  private observer: IntersectionObserver | null = null;

  constructor(private readonly element: ReactiveControllerHost & HTMLElement) {
    element.addController(this);
  }

  /** Newest first, at most {@link ACTIVITY_CAPACITY}. */
  get entries(): readonly ActivityEntry[] {
    if (this.arrived.length > 0) {
      this.shown = [...this.arrived.reverse(), ...this.shown].slice(0, ACTIVITY_CAPACITY);
      this.arrived = [];
    }
    return this.shown;
  }

  /** Follows `terminal` from now on (null: none). */
  follow(terminal: TerminalHost | null): void {
    if (terminal === this.terminal) return;
    this.stopListening();
    this.terminal = terminal;
    if (terminal !== null && this.store === null) this.loadKept();
    this.listen();
  }

  hostConnected(): void {
    this.connected = true;
    this.listen();
    document.addEventListener('visibilitychange', this.onSight);
    if (typeof IntersectionObserver === 'undefined') return;
    this.observer = new IntersectionObserver((records) => {
      const last = records[records.length - 1];
      if (last === undefined) return;
      this.inView = last.isIntersecting;
      this.onSight();
    });
    this.observer.observe(this.element);
  }

  hostDisconnected(): void {
    this.connected = false;
    this.stopListening();
    if (this.renderTimer !== null) clearTimeout(this.renderTimer);
    this.renderTimer = null;
    document.removeEventListener('visibilitychange', this.onSight);
    this.observer?.disconnect();
    this.observer = null;
    this.inView = true;
  }

  /** Whether a person can see the element now. */
  private get visible(): boolean {
    return this.inView && document.visibilityState !== 'hidden';
  }

  /** The element came into sight (or left it): what arrived meanwhile shows now. */
  private readonly onSight = (): void => {
    if (this.visible && this.arrived.length > 0) this.renderLater();
  };

  private loadKept(): void {
    this.store = new ActivityStore(tabId());
    // Loads before any new entry is written (the store runs in order), so nothing shows twice.
    void this.store.load().then((kept) => {
      this.shown = [...this.entries, ...kept].slice(0, ACTIVITY_CAPACITY);
      this.element.requestUpdate();
    });
  }

  private listen(): void {
    if (!this.connected || this.terminal === null || this.off !== null) return;
    this.off = this.terminal.onActivity((entry) => this.record(entry));
  }

  private stopListening(): void {
    this.off?.();
    this.off = null;
  }

  private record(entry: ActivityEntry): void {
    this.arrived.push(entry);
    if (this.arrived.length >= 2 * ACTIVITY_CAPACITY) this.arrived = this.arrived.slice(-ACTIVITY_CAPACITY);
    void this.store?.add(entry);
    if (this.visible) this.renderLater();
  }

  /** Renders the feed on a later task, after the call's answer has left the page. */
  private renderLater(): void {
    if (this.renderTimer !== null) return;
    const wait = Math.max(0, this.lastRender + this.renderGap - Date.now());
    this.renderTimer = setTimeout(() => {
      this.renderTimer = null;
      if (!this.visible) return;
      this.lastRender = Date.now();
      this.renderGap = this.arrived.length >= FEED_BURST_ROWS ? FEED_BURST_RENDER_MS : FEED_RENDER_MS;
      this.element.requestUpdate();
    }, wait);
  }
}
