/**
 * The person's grant for MCP attachments (SPEC §2): read, write or trade.
 * Only the person raises it; a change applies to the next call.
 */
import type { Grant } from '../../../src/protocol/index.js';
import { GrantSchema } from '../../../src/protocol/index.js';
import { el } from './dom.js';

const LABELS: Readonly<Record<Grant, string>> = { read: 'Read only', write: 'Read & write', trade: 'Trade (paper)' };

/** The grant selector in the header. */
export class GrantSwitch {
  private readonly select: HTMLSelectElement;

  /** `onChange` runs when the person picks another grant. */
  constructor(root: HTMLElement, initial: Grant, onChange: (grant: Grant) => void) {
    this.select = el(
      'select',
      { class: 'grant-select', title: 'What attached MCP clients may do', attrs: { 'data-testid': 'grant-select' } },
      GrantSchema.options.map((grant) => el('option', { text: LABELS[grant], attrs: { value: grant } })),
    );
    this.select.value = initial;
    this.select.addEventListener('change', () => {
      const parsed = GrantSchema.safeParse(this.select.value);
      if (parsed.success) onChange(parsed.data);
    });
    root.replaceChildren(el('span', { class: 'header-label', text: 'Agent access' }), this.select);
  }

  /** Shows a grant set elsewhere (e.g. proposed by a pairing link). */
  show(grant: Grant): void {
    this.select.value = grant;
  }
}
