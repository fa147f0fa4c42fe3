/**
 * `<tradescript-bridge>` as this terminal defines it: the element itself,
 * rendering nothing for new feed rows while nobody can see them. The element
 * already shows feed rows on a later task, after the call's answer has left
 * the page (rendering them in the microtask before it had doubled a trivial
 * read's latency with the dock closed and quadrupled it with the dock open);
 * here a bare update request (no property changed: a feed row) renders
 * nothing while the dock is closed, and while it is open renders at most once
 * per {@link FEED_RENDER_MS}. Property changes (status, grant, pairing) and
 * confirmation questions render at once. Feed entries are still recorded (and
 * kept in IndexedDB) by the element, so opening the dock shows them all.
 */
import type { PropertyValues } from 'lit';
import {
  TRADESCRIPT_BRIDGE_TAG,
  TradescriptBridgeElement,
  type ConfirmGate,
  type ConfirmPresenter,
} from '../../../src/element/index.js';

/** Longest a feed row waits to be shown while the dock is open. */
export const FEED_RENDER_MS = 100;

/** The terminal's bridge element. */
export class QuietBridgeElement extends TradescriptBridgeElement {
  private collapsed = true;
  private flushTimer: ReturnType<typeof setTimeout> | null = null;
  private flushing = false;
  private asking = 0;

  /** Whether the element is out of sight (its dock closed); opening renders what was deferred. */
  setCollapsed(collapsed: boolean): void {
    this.collapsed = collapsed;
    if (!collapsed) this.flush();
  }

  /**
   * The gate to hand the element: the same gate, whose questions render at
   * once and call `onAsk` first (the dock opens, so the person sees them).
   */
  confirmingGate(gate: ConfirmGate, onAsk: () => void): ConfirmGate {
    const present = (presenter: ConfirmPresenter): (() => void) =>
      gate.present(async (question, signal) => {
        this.asking += 1;
        onAsk();
        try {
          return await presenter(question, signal);
        } finally {
          this.asking -= 1;
          this.flush();
        }
      });
    return {
      confirm: gate.confirm,
      get enabled() {
        return gate.enabled;
      },
      set enabled(enabled: boolean) {
        gate.enabled = enabled;
      },
      present,
      onChange: (listener) => gate.onChange(listener),
    };
  }

  protected override shouldUpdate(changed: PropertyValues): boolean {
    if (changed.size > 0 || this.flushing || this.asking > 0) return super.shouldUpdate(changed);
    if (!this.collapsed && this.flushTimer === null) {
      this.flushTimer = setTimeout(() => this.flush(), FEED_RENDER_MS);
    }
    return false;
  }

  private flush(): void {
    if (this.flushTimer !== null) clearTimeout(this.flushTimer);
    this.flushTimer = null;
    this.flushing = true;
    this.requestUpdate();
    void this.updateComplete.finally(() => {
      this.flushing = false;
    });
  }
}

/** Registers the terminal's `<tradescript-bridge>` (once). */
export function defineQuietBridge(): void {
  if (customElements.get(TRADESCRIPT_BRIDGE_TAG) === undefined) {
    customElements.define(TRADESCRIPT_BRIDGE_TAG, QuietBridgeElement);
  }
}
