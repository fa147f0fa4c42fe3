/**
 * Plans a layered capture of a DOM widget (SPEC §8). snapdom serializes the
 * widget into one SVG and rasterizes it in one task; a canvas inside becomes
 * a PNG data URL (encoded on the main thread, decoded again in that task).
 * Here instead:
 *
 * - Canvases are lifted out: the DOM layer keeps an empty box where each
 *   one is, and the canvas is drawn over it from its own pixels. What
 *   paints after a lifted canvas and overlaps it (a chart legend) is lifted
 *   too, as a layer of its own drawn after it; what paints before stays
 *   under it in the DOM layer. Walking siblings in paint order decides
 *   which is which.
 * - A layer holding more than `budget` visible elements gives its heaviest
 *   subtrees that overlap nothing lifted and no sibling layers of their own,
 *   so no single rasterization is a long task.
 *
 * An element whose effects apply to its subtree as a whole (opacity,
 * transform, filter, masks) is never cut: its canvases stay in its layer
 * (snapdom draws them). Lifted layers are drawn under the padding boxes of
 * the ancestors that clip them.
 */
import { canvasContentBox, clipBoxOf, clipsOverflow, groupsDescendants, paintKey, type ClipBox } from './layerStyle.js';
import { overlaps, surveyWidget, type Box, type Survey } from './layerSurvey.js';

/** One layer, in paint order. */
export type Layer =
  | { kind: 'dom'; element: HTMLElement; hide: Element[]; clips: ClipBox[] }
  | { kind: 'pixels'; canvas: HTMLCanvasElement; box: Box; clips: ClipBox[] };

/** How finely a widget is cut. */
export interface PlanOptions {
  /** Most visible elements one DOM layer should hold (its rasterization is one task). */
  budget: number;
}

/** An element drawn apart from the layer it sits in, and the clips it is drawn under. */
interface Cut {
  element: Element;
  clips: ClipBox[];
}

/** A layer being planned: what it lifts and where its heavy subtrees could be cut off. */
interface Draft {
  lifted: Cut[];
  liftedBoxes: Box[];
  /** Children of the elements walked on the way to canvases: candidates for the budget. */
  candidates: Array<Cut & { siblings: Element[] }>;
}

const styleOf = (element: Element): CSSStyleDeclaration => getComputedStyle(element);

function standsAlone(element: Element, style: CSSStyleDeclaration): boolean {
  return element instanceof HTMLElement && style.display !== 'contents' && !groupsDescendants(style);
}

function inPaintOrder(kids: Element[]): Element[] {
  const keyed = kids.map((kid, index) => ({ kid, index, key: paintKey(styleOf(kid)) }));
  return keyed.sort((a, b) => a.key - b.key || a.index - b.index).map((entry) => entry.kid);
}

/** Walks `node`'s children in paint order, lifting canvases and what paints over them. */
function walk(survey: Survey, node: Element, clips: ClipBox[], draft: Draft): void {
  const kids = [...node.children].filter((kid) => survey.get(kid)?.bounds);
  for (const kid of inPaintOrder(kids)) {
    const entry = survey.get(kid)!;
    const style = styleOf(kid);
    const box = kid instanceof HTMLCanvasElement ? canvasContentBox(entry.rect, style) : null;
    if (box) {
      draft.lifted.push({ element: kid, clips });
      draft.liftedBoxes.push(box);
    } else if (draft.liftedBoxes.some((lifted) => overlaps(entry.bounds, lifted)) && standsAlone(kid, style)) {
      draft.lifted.push({ element: kid, clips });
      draft.liftedBoxes.push(entry.bounds!);
    } else if (entry.hasCanvas && standsAlone(kid, style)) {
      walk(survey, kid, clipsOverflow(style) ? [...clips, clipBoxOf(entry.rect, style)] : clips, draft);
    } else {
      draft.candidates.push({ element: kid, clips, siblings: kids });
    }
  }
}

/** The heaviest candidates, cut off until the layer holds at most `budget` elements. */
function cutForBudget(survey: Survey, draft: Draft, weight: number, budget: number): Cut[] {
  const cut: Cut[] = [];
  const weightOf = (element: Element): number => survey.get(element)?.weight ?? 0;
  const fits = (candidate: Draft['candidates'][number]): boolean => {
    const bounds = survey.get(candidate.element)!.bounds;
    return (
      standsAlone(candidate.element, styleOf(candidate.element)) &&
      !draft.liftedBoxes.some((box) => overlaps(bounds, box)) &&
      !candidate.siblings.some((other) => other !== candidate.element && overlaps(bounds, survey.get(other)!.bounds))
    );
  };
  for (const candidate of [...draft.candidates].sort((a, b) => weightOf(b.element) - weightOf(a.element))) {
    if (weight <= budget) break;
    if (weightOf(candidate.element) < 2 || !fits(candidate)) continue;
    cut.push(candidate);
    weight -= weightOf(candidate.element);
  }
  return cut;
}

function planLayer(survey: Survey, element: HTMLElement, clips: ClipBox[], options: PlanOptions, out: Layer[]): void {
  const style = styleOf(element);
  const entry = survey.get(element)!;
  if (groupsDescendants(style) || (!entry.hasCanvas && entry.weight <= options.budget)) {
    out.push({ kind: 'dom', element, hide: [], clips });
    return;
  }
  const draft: Draft = { lifted: [], liftedBoxes: [], candidates: [] };
  const inner = clipsOverflow(style) ? [...clips, clipBoxOf(entry.rect, style)] : clips;
  walk(survey, element, inner, draft);
  const liftedWeight = draft.lifted.reduce((sum, cut) => sum + (survey.get(cut.element)?.weight ?? 0), 0);
  const heavy = cutForBudget(survey, draft, entry.weight - liftedWeight, options.budget);
  out.push({ kind: 'dom', element, hide: [...heavy, ...draft.lifted].map((cut) => cut.element), clips });
  for (const cut of [...heavy, ...draft.lifted]) {
    const box =
      cut.element instanceof HTMLCanvasElement
        ? canvasContentBox(survey.get(cut.element)!.rect, styleOf(cut.element))
        : null;
    if (box) out.push({ kind: 'pixels', canvas: cut.element as HTMLCanvasElement, box, clips: cut.clips });
    else planLayer(survey, cut.element as HTMLElement, cut.clips, options, out);
  }
}

/** Gives each hidden element to the DOM layer whose element is its nearest ancestor. */
function assignHidden(layers: Layer[], hidden: ReadonlySet<Element>): void {
  const byElement = new Map<Element, Element[]>();
  for (const layer of layers) if (layer.kind === 'dom') byElement.set(layer.element, layer.hide);
  for (const element of hidden) {
    for (let up = element.parentElement; up; up = up.parentElement) {
      const hide = byElement.get(up);
      if (hide) {
        hide.push(element);
        break;
      }
    }
  }
}

/** The layers of `root`, in paint order; `hidden` (what its scroll boxes hide) is left out. */
export function planLayers(root: HTMLElement, hidden: ReadonlySet<Element>, options: PlanOptions): Layer[] {
  const survey = surveyWidget(root, hidden);
  const out: Layer[] = [];
  planLayer(survey, root, [], options, out);
  assignHidden(out, hidden);
  return out;
}
