/**
 * A tiny element builder, so views read as their structure without a framework.
 */

/** Attributes and text of a new element. */
export interface ElementSpec {
  class?: string;
  text?: string;
  title?: string;
  /** Other attributes, e.g. `data-testid`. */
  attrs?: Record<string, string>;
}

/** Creates an element with attributes and children. */
export function el<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  spec: ElementSpec = {},
  children: ReadonlyArray<Node | string> = [],
): HTMLElementTagNameMap[K] {
  const node = document.createElement(tag);
  if (spec.class) node.className = spec.class;
  if (spec.text !== undefined) node.textContent = spec.text;
  if (spec.title) node.title = spec.title;
  for (const [name, value] of Object.entries(spec.attrs ?? {})) node.setAttribute(name, value);
  node.append(...children);
  return node;
}

/** The element with this `data-testid`, which the page markup must contain. */
export function byTestId<T extends HTMLElement = HTMLElement>(testId: string, root: ParentNode = document): T {
  const node = root.querySelector<T>(`[data-testid="${testId}"]`);
  if (!node) throw new Error(`The page has no [data-testid="${testId}"].`);
  return node;
}

/**
 * Sets text only when it changed, so unchanged cells cost no layout. A node
 * that holds one text node keeps it and changes its data: `textContent`
 * would replace it, and the browser would take the old one out of the layout
 * tree and build a new one for every price on every tick.
 */
export function setText(node: Node, text: string): void {
  const only = node.firstChild;
  if (text !== '' && only instanceof Text && only.nextSibling === null) {
    if (only.data !== text) only.data = text;
  } else if (node.textContent !== text) {
    node.textContent = text;
  }
}
