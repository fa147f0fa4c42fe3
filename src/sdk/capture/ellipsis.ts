/**
 * Ellipsis text, cut once per capture (SPEC §8, §12). Before each clone,
 * snapdom walks the whole subtree of the element it captures and, for each
 * box that cuts its one line of text with `text-overflow: ellipsis`, finds by
 * binary search over the live DOM (a text write and a forced layout per step)
 * the longest prefix that fits with "…", writes it for the clone and puts the
 * text back afterwards. A layered capture runs that walk once per layer, and
 * the widget's own layer walks every other layer's subtree too: the same
 * boxes are searched again, and each round of writes makes snapdom drop its
 * cached style data. Here the same search (the same test, the same cut, the
 * same "…") runs once for the widget before its layers; snapdom then finds
 * every such box already fitting and leaves it alone. The text is put back
 * when the capture ends, unless the page has changed it meanwhile.
 */

const ELLIPSIS = '\u2026';

/** True when a box shows one line of text cut with an ellipsis (the boxes snapdom cuts). */
function cutsWithEllipsis(style: CSSStyleDeclaration): boolean {
  return (
    style.textOverflow === 'ellipsis' &&
    (style.whiteSpace === 'nowrap' || style.whiteSpace === 'pre') &&
    (style.overflowX === 'hidden' || style.overflowX === 'clip') &&
    // A line-clamped box is snapdom's to measure first; it is left to snapdom whole.
    !(parseInt(style.getPropertyValue('-webkit-line-clamp') || style.getPropertyValue('line-clamp'), 10) > 0)
  );
}

function textChildren(element: Element): Text[] {
  const nodes: Text[] = [];
  for (let node = element.firstChild; node; node = node.nextSibling) {
    if (node.nodeType === Node.TEXT_NODE) nodes.push(node as Text);
  }
  return nodes;
}

const fits = (element: Element): boolean => element.scrollWidth <= element.clientWidth + 0.5;

/** `index`, moved back one when it would split a surrogate pair. */
function cutAt(text: string, index: number): number {
  if (index <= 0 || index >= text.length) return index;
  const code = text.charCodeAt(index - 1);
  return code >= 0xd800 && code <= 0xdbff ? index - 1 : index;
}

/** The prefix of `text` that cut position `middle` shows, with "…". */
const shownAt = (text: string, middle: number): string =>
  (middle >= 0 ? text.slice(0, cutAt(text, middle)) : '') + ELLIPSIS;

/** Each box's last cut: the text it was searched for and the position found. */
const lastCuts = new WeakMap<Element, { text: string; best: number }>();

/**
 * The cut position found for the same text last time, when it is still the
 * longest that fits: it fits and one more character does not. Fitting grows
 * no wider as the prefix shortens (what the search itself relies on), so that
 * is the position the search would find, in two layouts instead of about
 * log2(length) + 1.
 */
function lastCutStillHolds(element: Element, text: string, write: (value: string) => void): number | null {
  const last = lastCuts.get(element);
  if (last?.text !== text) return null;
  const { best } = last;
  write(shownAt(text, best));
  if (best >= 0 && !fits(element)) return null;
  if (best >= text.length) return best;
  write(shownAt(text, best + 1));
  return fits(element) ? null : best;
}

/** The last position whose prefix fits with "…" (-1 when none does), by binary search. */
function searchCut(element: Element, text: string, write: (value: string) => void): number {
  let low = 0;
  let high = text.length;
  let best = -1;
  while (low <= high) {
    const middle = (low + high) >> 1;
    write(shownAt(text, middle));
    if (fits(element)) [best, low] = [middle, middle + 1];
    else high = middle - 1;
  }
  return best;
}

/** Writes the longest prefix of `element`'s text that fits with "…"; returns how to put the text back. */
function cut(element: Element, nodes: Text[]): () => void {
  const saved = nodes.map((node) => node.data);
  const text = saved.join('');
  const write = (value: string): void => {
    nodes.forEach((node, index) => (node.data = index === 0 ? value : ''));
  };
  const best = lastCutStillHolds(element, text, write) ?? searchCut(element, text, write);
  lastCuts.set(element, { text, best });
  const shown = shownAt(text, best);
  write(shown);
  return () => {
    if (element.textContent === shown) nodes.forEach((node, index) => (node.data = saved[index]!));
  };
}

/**
 * Cuts every overflowing ellipsis box under `root` (itself included) as
 * snapdom would; returns how to put all their text back.
 */
export function cutEllipsisText(root: Element): () => void {
  const restores: Array<() => void> = [];
  const candidates = [root, ...root.querySelectorAll('*')];
  for (const element of candidates) {
    if (element.childElementCount > 0) continue;
    const nodes = textChildren(element);
    if (nodes.length === 0 || !cutsWithEllipsis(getComputedStyle(element)) || fits(element)) continue;
    restores.push(cut(element, nodes));
  }
  return () => {
    for (const restore of restores) restore();
  };
}
