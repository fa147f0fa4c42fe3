/**
 * The page side of the opt-in "confirm trades" mode (SPEC §5). The host SDK
 * takes its `ConfirmHandler` only at construction, so the page creates a gate
 * first, hands `gate.confirm` to `createTerminalHost({ confirm })`, and gives
 * the same gate to the element (`element.confirmGate = gate`), which asks the
 * person. The SDK calls the handler only for trade-class calls and owns the
 * 20 s window: it aborts the handler's signal when the window ends or the call
 * is cancelled, and ignores a late answer.
 */
import type { Target } from '../protocol/target.js';
import type { ConfirmHandler } from '../sdk/types.js';
import { keepConfirmMode, keptConfirmMode } from './tabStorage.js';

/** What the person is asked about: which client wants which control on which target. */
export interface ConfirmQuestion {
  controlId: string;
  target: Target;
  clientName: string;
}

/** Shows a question and resolves with the person's answer; `signal` aborts when it is moot. */
export type ConfirmPresenter = (question: ConfirmQuestion, signal: AbortSignal) => Promise<boolean>;

/** The handler for `createTerminalHost({ confirm })` and the switch behind the element's checkbox. */
export interface ConfirmGate {
  /** Pass this to `createTerminalHost({ confirm })`. */
  readonly confirm: ConfirmHandler;
  /**
   * Whether trade-class calls wait for the person. Off: they run without a
   * question. On with no element presenting: they are declined. Kept for
   * reloads of the tab.
   */
  enabled: boolean;
  /** Makes `presenter` the one that asks (the element does this); returns the undo. */
  present(presenter: ConfirmPresenter): () => void;
  /** Hears changes of {@link ConfirmGate.enabled}; returns the unsubscribe function. */
  onChange(listener: () => void): () => void;
}

/** Options of {@link createConfirmGate}. */
export interface ConfirmGateOptions {
  /** The mode when this tab has not chosen one yet (default off: the mode is opt-in). */
  enabled?: boolean;
}

/** Creates the gate; see {@link ConfirmGate}. */
export function createConfirmGate(options: ConfirmGateOptions = {}): ConfirmGate {
  let enabled = keptConfirmMode() ?? options.enabled ?? false;
  let presenter: ConfirmPresenter | null = null;
  const listeners = new Set<() => void>();
  const confirm: ConfirmHandler = async ({ controlId, target, clientName, signal }) => {
    if (!enabled) return true;
    if (presenter === null || signal.aborted) return false;
    return presenter({ controlId, target, clientName }, signal);
  };
  return {
    confirm,
    get enabled() {
      return enabled;
    },
    set enabled(next: boolean) {
      if (next === enabled) return;
      enabled = next;
      keepConfirmMode(next);
      for (const listener of listeners) listener();
    },
    present(next) {
      presenter = next;
      return () => {
        if (presenter === next) presenter = null;
      };
    },
    onChange(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
  };
}
