/**
 * The element's pending confirmations, answered one at a time in arrival
 * order. Each settles exactly once: by the person, by its own timer, or by
 * its signal; a later click finds nothing to answer and is ignored.
 */
import { RELAY_TIMING } from '../protocol/limits.js';
import type { ConfirmQuestion } from './confirmGate.js';

/** A question waiting for the person. */
export interface PendingConfirmation {
  readonly id: number;
  readonly question: ConfirmQuestion;
  /** How long the person has, for the countdown. */
  readonly timeoutMs: number;
}

interface Waiting extends PendingConfirmation {
  settle(approved: boolean): void;
}

/** Questions waiting for the person. */
export class ConfirmQueue {
  private waiting: Waiting[] = [];
  private nextId = 1;

  /** `onChange` runs whenever the head of the queue may have changed. */
  constructor(private readonly onChange: () => void) {}

  /** Asks; false after `timeoutMs` (never more than the SDK's 20 s) or when `signal` aborts. */
  ask(question: ConfirmQuestion, signal: AbortSignal, timeoutMs: number): Promise<boolean> {
    const window = Math.max(0, Math.min(timeoutMs, RELAY_TIMING.confirmationTimeoutMs));
    return new Promise<boolean>((resolve) => {
      const onAbort = (): void => item.settle(false);
      const timer = setTimeout(onAbort, window);
      const item: Waiting = {
        id: this.nextId++,
        question,
        timeoutMs: window,
        settle: (approved) => {
          if (!this.waiting.includes(item)) return;
          this.waiting = this.waiting.filter((w) => w !== item);
          clearTimeout(timer);
          signal.removeEventListener('abort', onAbort);
          resolve(approved);
          this.onChange();
        },
      };
      this.waiting.push(item);
      signal.addEventListener('abort', onAbort, { once: true });
      if (signal.aborted) onAbort();
      else this.onChange();
    });
  }

  /** The question shown now. */
  current(): PendingConfirmation | undefined {
    return this.waiting[0];
  }

  /** How many questions wait, the one shown included. */
  get size(): number {
    return this.waiting.length;
  }

  /** The person's answer to question `id`; ignored when it is no longer waiting. */
  answer(id: number, approved: boolean): void {
    this.waiting.find((w) => w.id === id)?.settle(approved);
  }

  /** Declines everything (the element went away). */
  declineAll(): void {
    for (const item of [...this.waiting]) item.settle(false);
  }
}
