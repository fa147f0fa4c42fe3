/**
 * What a widget's own scroll boxes hide (SPEC §8): elements wholly outside
 * the visible rectangle of a clipping ancestor inside the captured root. A
 * capture leaves them out (keeping their space), which is most of the cost of
 * a long blotter. Only boxes straddling an edge are descended into.
 */

function clips(element: Element): boolean {
  const scrolls = element.scrollHeight > element.clientHeight + 1 || element.scrollWidth > element.clientWidth + 1;
  if (!scrolls) return false;
  const style = getComputedStyle(element);
  return style.overflowX !== 'visible' || style.overflowY !== 'visible';
}

type Placement = 'inside' | 'outside' | 'straddles';

function placement(rect: DOMRect, box: DOMRect): Placement {
  if (rect.bottom <= box.top || rect.top >= box.bottom || rect.right <= box.left || rect.left >= box.right) {
    return rect.width === 0 && rect.height === 0 ? 'inside' : 'outside';
  }
  const inside = rect.top >= box.top && rect.bottom <= box.bottom && rect.left >= box.left && rect.right <= box.right;
  return inside ? 'inside' : 'straddles';
}

/** Adds the descendants of a clipping box that lie wholly outside its visible rectangle. */
function collectOutside(box: Element, hidden: Set<Element>): void {
  const visible = box.getBoundingClientRect();
  const pending: Element[] = [...box.children];
  while (pending.length > 0) {
    const element = pending.pop()!;
    const where = placement(element.getBoundingClientRect(), visible);
    if (where === 'outside') hidden.add(element);
    else if (where === 'straddles') pending.push(...element.children);
  }
}

/** Every element under `root` that its own scroll boxes hide from view. */
export function scrolledOutOfView(root: HTMLElement): Set<Element> {
  const hidden = new Set<Element>();
  const walker = document.createTreeWalker(root, NodeFilter.SHOW_ELEMENT, {
    acceptNode: (node) => (hidden.has(node as Element) ? NodeFilter.FILTER_REJECT : NodeFilter.FILTER_ACCEPT),
  });
  for (let node: Node | null = walker.currentNode; node; node = walker.nextNode()) {
    // A box without element children hides none (its own text is not left out): its four layout reads are saved.
    const element = node as Element;
    if (element.childElementCount > 0 && clips(element)) collectOutside(element, hidden);
  }
  return hidden;
}
