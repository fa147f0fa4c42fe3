/**
 * What the person reads when a broker request fails: the broker's status,
 * code and message, or for a lost answer the warning that the request may
 * have gone through (check the blotter before trying again).
 */
import { isBrokerError, LostResponseError } from '../broker/errors.js';
import { el, setText } from './dom.js';

/** The tone of a status line. */
export type Tone = 'info' | 'ok' | 'warn' | 'error';

/** A short line describing a failed request. */
export function describeFailure(error: unknown): { text: string; tone: Tone } {
  if (error instanceof LostResponseError) {
    return {
      text: 'No answer from the broker: the request may have gone through. Check the blotter before retrying.',
      tone: 'warn',
    };
  }
  if (isBrokerError(error)) {
    const prefix = `${error.status} ${error.code}`;
    if (error.status === 401)
      return { text: `${prefix}: session expired. Re-authenticate (header), then retry.`, tone: 'error' };
    return {
      text: `${prefix}: ${error.message}`,
      tone: error.status === 503 || error.status === 429 ? 'warn' : 'error',
    };
  }
  return { text: 'The request failed unexpectedly.', tone: 'error' };
}

/** A one-line status area. */
export class StatusLine {
  readonly element = el('div', { class: 'status-line', attrs: { role: 'status', 'aria-live': 'polite' } });

  /** Shows a message in a tone (or clears it with an empty text). */
  show(text: string, tone: Tone = 'info'): void {
    setText(this.element, text);
    this.element.dataset['tone'] = tone;
    this.element.title = text;
  }

  /** Shows what a failed request means. */
  failure(error: unknown): void {
    const { text, tone } = describeFailure(error);
    this.show(text, tone);
  }

  /** Clears the line. */
  clear(): void {
    this.show('');
  }
}
