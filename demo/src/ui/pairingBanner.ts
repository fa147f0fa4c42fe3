/**
 * The banner under the header when the terminal is not paired: the reason and
 * the command that prints a fresh pairing link.
 */
import type { BridgeStatus } from '../../../src/bridge/types.js';
import { PAIR_COMMAND } from '../bridge/pairing.js';
import { el, setText } from './dom.js';

const DEFAULT_MESSAGE = 'This terminal is not paired with a TradeScript MCP server.';

/** The pairing banner. */
export class PairingBanner {
  private readonly message = el('span', {
    class: 'banner-message',
    attrs: { 'data-testid': 'pairing-banner-message' },
  });
  private readonly enter = el('button', {
    class: 'banner-copy',
    text: 'Enter a code',
    attrs: { type: 'button', 'data-testid': 'pairing-enter-code' },
  });

  constructor(private readonly root: HTMLElement) {
    const command = el('code', {
      class: 'banner-command',
      text: PAIR_COMMAND,
      attrs: { 'data-testid': 'pairing-command' },
    });
    const copy = el('button', { class: 'banner-copy', text: 'Copy', attrs: { type: 'button' } });
    copy.addEventListener('click', () => {
      navigator.clipboard?.writeText(PAIR_COMMAND).then(
        () => setText(copy, 'Copied'),
        () => setText(copy, 'Copy failed'),
      );
    });
    root.replaceChildren(
      el('span', { class: 'banner-icon', text: '!' }),
      this.message,
      el('span', { class: 'banner-hint', text: 'For a fresh pairing link run' }),
      command,
      copy,
      this.enter,
    );
    root.hidden = true;
  }

  /** Runs `open` when the person wants to type a code (the bridge element has the form). */
  onEnterCode(open: () => void): void {
    this.enter.addEventListener('click', open);
  }

  /** Shows the banner while unpaired, with the bridge's message. */
  show(status: BridgeStatus): void {
    this.root.hidden = status.state !== 'unpaired';
    const text = status.message ?? DEFAULT_MESSAGE;
    if (this.message.dataset['text'] === text) return;
    this.message.dataset['text'] = text;
    this.message.replaceChildren(...withInlineCode(text));
  }
}

/** Text with `backticked` parts as code elements (messages name commands that way). */
function withInlineCode(text: string): Node[] {
  return text
    .split('`')
    .map((part, index) => (index % 2 === 1 ? el('code', { text: part }) : document.createTextNode(part)));
}
