/**
 * One read pass over a widget before a layered capture (SPEC §8): each
 * element's box, the box its whole subtree paints into, how many visible
 * elements it holds and whether a canvas is among them. The layout is read
 * once here (it is clean after the first read), so planning costs about a
 * millisecond for a terminal of a few hundred elements.
 */
import { clipsOverflow } from './layerStyle.js';

/** A rectangle in CSS pixels, page-relative like `getBoundingClientRect`. */
export interface Box {
  left: number;
  top: number;
  right: number;
  bottom: number;
}

/** What the planner knows about one element. */
export interface Surveyed {
  rect: DOMRect;
  /** The union of the non-empty boxes in its subtree (itself included); null when all are empty. */
  bounds: Box | null;
  /** Visible elements in its subtree, itself included (scrolled-out subtrees count 0). */
  weight: number;
  /** Whether a visible canvas is in its subtree (itself included). */
  hasCanvas: boolean;
}

/** The survey of a widget: every element of its subtree that is not hidden. */
export type Survey = Map<Element, Surveyed>;

/** True when two boxes share some area. */
export function overlaps(a: Box | null, b: Box | null): boolean {
  if (!a || !b) return false;
  return a.left < b.right && b.left < a.right && a.top < b.bottom && b.top < a.bottom;
}

function union(a: Box | null, b: Box | null): Box | null {
  if (!a) return b;
  if (!b) return a;
  return {
    left: Math.min(a.left, b.left),
    top: Math.min(a.top, b.top),
    right: Math.max(a.right, b.right),
    bottom: Math.max(a.bottom, b.bottom),
  };
}

function boxOf(rect: DOMRect): Box | null {
  return rect.width > 0 && rect.height > 0
    ? { left: rect.left, top: rect.top, right: rect.right, bottom: rect.bottom }
    : null;
}

function intersection(a: Box | null, b: Box | null): Box | null {
  if (!a || !b) return null;
  const box = {
    left: Math.max(a.left, b.left),
    top: Math.max(a.top, b.top),
    right: Math.min(a.right, b.right),
    bottom: Math.min(a.bottom, b.bottom),
  };
  return box.right > box.left && box.bottom > box.top ? box : null;
}

function surveyElement(element: Element, hidden: ReadonlySet<Element>, into: Survey): Surveyed {
  const rect = element.getBoundingClientRect();
  const style = getComputedStyle(element);
  // An invisible box paints nothing, though a visible descendant may.
  const own = style.visibility === 'visible' ? boxOf(rect) : null;
  const entry: Surveyed = {
    rect,
    bounds: own,
    weight: 1,
    hasCanvas: element instanceof HTMLCanvasElement && own !== null,
  };
  into.set(element, entry);
  let inside: Box | null = null;
  for (const child of element.children) {
    if (hidden.has(child)) continue;
    const seen = surveyElement(child, hidden, into);
    inside = union(inside, seen.bounds);
    entry.weight += seen.weight;
    entry.hasCanvas ||= seen.hasCanvas;
  }
  // What a scroll box or clipping box holds paints only inside it.
  entry.bounds = union(own, clipsOverflow(style) ? intersection(inside, boxOf(rect)) : inside);
  return entry;
}

/** Surveys `root`'s subtree, leaving out what `hidden` holds (and their subtrees). */
export function surveyWidget(root: Element, hidden: ReadonlySet<Element>): Survey {
  const survey: Survey = new Map();
  surveyElement(root, hidden, survey);
  return survey;
}
