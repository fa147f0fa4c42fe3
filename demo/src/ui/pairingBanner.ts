/**
 * The banner under the header when the terminal is not paired: the reason and
 * the command that prints a fresh pairing link. Through the extension, it
 * also shows while the extension has not linked the tab (not installed, the
 * site not allowed, or revoked), and the code goes into the extension's popup.
 */
import type { BridgeStatus } from '../../../src/bridge/page/bridgeTypes.js';
import type { BridgeMode } from '../bridge/bridgeMode.js';
import { PAIR_COMMAND } from '../bridge/pairing.js';
import { el, setText } from './dom.js';

const DEFAULT_MESSAGE = 'This terminal is not paired with a TradeScript MCP server.';
const HINTS: Readonly<Record<BridgeMode, string>> = {
  element: 'For a fresh pairing link run',
  extension: 'Pair the extension in its popup with a code from',
};

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

  private readonly hint: HTMLElement;
  private readonly command: HTMLElement;
  private readonly copy: HTMLElement;

  constructor(
    private readonly root: HTMLElement,
    private readonly mode: BridgeMode = 'element',
  ) {
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
    this.hint = el('span', { class: 'banner-hint', text: HINTS[mode] });
    this.command = command;
    this.copy = copy;
    this.enter.hidden = mode === 'extension';
    root.replaceChildren(
      el('span', { class: 'banner-icon', text: '!' }),
      this.message,
      this.hint,
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

  /** Shows the banner while unpaired (or, through the extension, unlinked), with the bridge's message. */
  show(status: BridgeStatus): void {
    const unpaired = status.state === 'unpaired';
    const unlinked = this.mode === 'extension' && status.state === 'disconnected' && status.message !== null;
    this.root.hidden = !unpaired && !unlinked;
    for (const part of [this.hint, this.command, this.copy]) part.hidden = !unpaired;
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
