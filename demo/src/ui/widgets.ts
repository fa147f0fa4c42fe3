/**
 * Small form widgets in the terminal's style: labelled inputs and selects,
 * segmented toggles and buttons.
 */
import { el } from './dom.js';

/** A text input with its label inside the same box. */
export function field(label: string, input: HTMLInputElement | HTMLSelectElement, testId?: string): HTMLLabelElement {
  if (testId) input.dataset['testid'] = testId;
  return el('label', { class: 'field' }, [el('span', { class: 'field-label', text: label }), input]);
}

/** A decimal input. */
export function decimalInput(placeholder = ''): HTMLInputElement {
  const input = el('input', {
    class: 'field-input num',
    attrs: { inputmode: 'decimal', autocomplete: 'off', spellcheck: 'false' },
  });
  input.placeholder = placeholder;
  return input;
}

/** A select with these options. */
export function select(
  options: ReadonlyArray<string | { value: string; label: string }>,
  value?: string,
): HTMLSelectElement {
  const node = el(
    'select',
    { class: 'field-input' },
    options.map((o) =>
      typeof o === 'string'
        ? el('option', { text: o, attrs: { value: o } })
        : el('option', { text: o.label, attrs: { value: o.value } }),
    ),
  );
  if (value !== undefined) node.value = value;
  return node;
}

/** Replaces a select's options, keeping the value when it is still there. */
export function setOptions(node: HTMLSelectElement, options: readonly string[]): void {
  const value = node.value;
  node.replaceChildren(...options.map((o) => el('option', { text: o, attrs: { value: o } })));
  if (options.includes(value)) node.value = value;
}

/** A button. */
export function button(text: string, className: string, testId?: string): HTMLButtonElement {
  const node = el('button', { class: `btn ${className}`, text, attrs: { type: 'button' } });
  if (testId) node.dataset['testid'] = testId;
  return node;
}

/** A segmented toggle: one of several values. */
export class Segmented<V extends string> {
  readonly element: HTMLElement;
  private readonly buttons = new Map<V, HTMLButtonElement>();
  private current: V;

  constructor(
    values: ReadonlyArray<{ value: V; label: string; className?: string }>,
    initial: V,
    private readonly onChange: (value: V) => void,
    testId?: string,
  ) {
    this.current = initial;
    this.element = el('div', {
      class: 'segmented',
      attrs: { role: 'radiogroup', ...(testId ? { 'data-testid': testId } : {}) },
    });
    for (const { value, label, className } of values) {
      const node = el('button', {
        class: `segment ${className ?? ''}`,
        text: label,
        attrs: { type: 'button', role: 'radio', 'data-value': value },
      });
      node.addEventListener('click', () => this.set(value, true));
      this.buttons.set(value, node);
      this.element.append(node);
    }
    this.paint();
  }

  /** The chosen value. */
  get value(): V {
    return this.current;
  }

  /** Chooses a value; `notify` runs the change callback. */
  set(value: V, notify = false): void {
    if (value === this.current) return;
    this.current = value;
    this.paint();
    if (notify) this.onChange(value);
  }

  /** Enables or disables every segment. */
  setDisabled(disabled: boolean): void {
    for (const node of this.buttons.values()) node.disabled = disabled;
  }

  /** The button of one value (e.g. to show a live price on it). */
  button(value: V): HTMLButtonElement | undefined {
    return this.buttons.get(value);
  }

  private paint(): void {
    for (const [value, node] of this.buttons) {
      node.classList.toggle('active', value === this.current);
      node.setAttribute('aria-checked', String(value === this.current));
    }
  }
}
