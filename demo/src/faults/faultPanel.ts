/**
 * "Test faults": a collapsible panel that injects paper-broker failures
 * (latency, lost responses, rejections, 503, 429, session expiry, unpriced
 * FX, rate drift), optionally for one control. It writes the same grammar as
 * the `?faults=` URL flag and the test hook.
 */
import { AUTH_URL } from '../broker/gateway.js';
import { describeFault, FAULT_KINDS, type FaultInjector, type FaultKind } from '../broker/faults.js';
import { el, setText } from '../ui/dom.js';
import { StatusLine } from '../ui/feedback.js';
import { button, select } from '../ui/widgets.js';

const HINTS: Readonly<Record<FaultKind, string>> = {
  latency: 'Delay every matching request by N ms (until cleared).',
  lostResponse: 'Apply the request, then lose the answer (N times).',
  reject: 'Reject with 400 and the broker code (N times).',
  unavailable: 'Answer 503 Service Unavailable (N times).',
  rateLimited: 'Answer 429 Too Many Requests (N times).',
  sessionExpired: 'Answer 401 with an auth URL until re-authenticated.',
  unpriced: 'FX quotes come back with an empty rate (N times).',
  drift: 'FX confirmations see the rate moved 1% (N times).',
};

/** The fault panel and its toggle in the status bar. */
export class FaultPanel {
  private readonly panel = el('aside', {
    class: 'fault-panel',
    attrs: { hidden: '', 'data-testid': 'fault-panel', 'aria-label': 'Test faults' },
  });
  private readonly toggle = el('button', {
    class: 'fault-toggle',
    attrs: { type: 'button', 'data-testid': 'fault-toggle', 'aria-expanded': 'false' },
  });
  private readonly rules = el('ul', { class: 'fault-rules' });
  private readonly kind = select(FAULT_KINDS, 'lostResponse');
  private readonly scope: HTMLSelectElement;
  private readonly amount = el('input', {
    class: 'field-input num',
    attrs: { type: 'number', min: '1', value: '1', 'aria-label': 'Count or milliseconds' },
  });
  private readonly code = el('input', {
    class: 'field-input',
    attrs: { placeholder: 'CODE', maxlength: '40', 'aria-label': 'Broker code' },
  });
  private readonly grammar = el('input', {
    class: 'field-input mono',
    attrs: { placeholder: 'lostResponse:orders.placeOrder:1,latency:200', 'data-testid': 'fault-grammar' },
  });
  private readonly hint = el('p', { class: 'fault-hint' });
  private readonly status = new StatusLine();

  constructor(
    statusBar: HTMLElement,
    container: HTMLElement,
    private readonly faults: FaultInjector,
    controlIds: readonly string[],
    private readonly reauthenticate: () => void,
  ) {
    this.scope = select(
      [{ value: '', label: 'any request' }, ...controlIds.map((id) => ({ value: id, label: id }))],
      '',
    );
    statusBar.insertBefore(this.toggle, statusBar.querySelector('.spacer'));
    container.append(this.panel);
    this.toggle.addEventListener('click', () => this.setOpen(this.panel.hidden));
    this.build();
    faults.onChange(() => this.render());
    this.render();
  }

  private build(): void {
    const close = button('×', 'icon', 'fault-close');
    close.title = 'Close';
    close.addEventListener('click', () => this.setOpen(false));
    const add = button('Add', 'mini primary', 'fault-add');
    add.addEventListener('click', () => this.add());
    const apply = button('Apply', 'mini', 'fault-apply');
    apply.addEventListener('click', () => this.apply());
    const expire = button('Expire session', 'mini danger', 'fault-expire-session');
    expire.addEventListener('click', () => this.faults.add({ kind: 'sessionExpired' }));
    const reauth = button('Re-authenticate', 'mini', 'fault-reauthenticate');
    reauth.addEventListener('click', () => this.reauthenticate());
    const clear = button('Clear all', 'mini ghost', 'fault-clear');
    clear.addEventListener('click', () => this.faults.clear());
    this.kind.addEventListener('change', () => this.paintForm());
    this.panel.append(
      el('header', { class: 'fault-head' }, [
        el('h2', { text: 'Test faults' }),
        el('span', { class: 'panel-tag', text: 'paper broker' }),
        el('span', { class: 'spacer' }),
        close,
      ]),
      el('p', { class: 'fault-note', text: 'Injected failures for testing; the same grammar as ?faults=…' }),
      this.rules,
      el('div', { class: 'fault-form' }, [this.kind, this.scope, this.amount, this.code, add]),
      this.hint,
      el('div', { class: 'fault-form' }, [this.grammar, apply]),
      el('div', { class: 'fault-form' }, [expire, reauth, el('span', { class: 'spacer' }), clear]),
      el('p', { class: 'fault-hint', text: `Session expiry surfaces ${AUTH_URL} (never opened).` }),
      this.status.element,
    );
    this.paintForm();
  }

  private setOpen(open: boolean): void {
    this.panel.hidden = !open;
    this.toggle.setAttribute('aria-expanded', String(open));
  }

  private paintForm(): void {
    const kind = this.kind.value as FaultKind;
    this.code.hidden = kind !== 'reject';
    this.amount.hidden = kind === 'sessionExpired';
    this.amount.title = kind === 'latency' ? 'Milliseconds' : 'How many requests';
    if (kind === 'latency' && this.amount.value === '1') this.amount.value = '300';
    if (kind !== 'latency' && Number(this.amount.value) > 20) this.amount.value = '1';
    setText(this.hint, HINTS[kind]);
  }

  private add(): void {
    const kind = this.kind.value as FaultKind;
    const value = Math.max(Number(this.amount.value) || 0, 0);
    const code = this.code.value.trim().toUpperCase();
    this.faults.add({
      kind,
      ...(this.scope.value ? { scope: this.scope.value } : {}),
      ...(kind === 'latency' ? { ms: value } : { count: value || 1 }),
      ...(kind === 'reject' && code ? { code } : {}),
    });
    this.status.show(`Added ${kind}.`, 'ok');
  }

  private apply(): void {
    const errors = this.faults.addText(this.grammar.value);
    this.status.show(errors.length ? errors.join(' ') : 'Applied.', errors.length ? 'warn' : 'ok');
    if (!errors.length) this.grammar.value = '';
  }

  private render(): void {
    const rules = this.faults.list();
    setText(this.toggle, rules.length ? `Test faults · ${rules.length}` : 'Test faults');
    this.toggle.classList.toggle('active', rules.length > 0);
    this.rules.replaceChildren(
      ...(rules.length
        ? rules.map((rule) => {
            const remove = button('×', 'icon');
            remove.title = 'Remove';
            remove.addEventListener('click', () => this.faults.remove(rule.id));
            return el('li', { class: 'fault-rule' }, [el('code', { text: describeFault(rule) }), remove]);
          })
        : [el('li', { class: 'fault-empty', text: 'No faults: the broker behaves.' })]),
    );
  }
}
