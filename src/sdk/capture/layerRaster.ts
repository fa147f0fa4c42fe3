/**
 * Rasterizing one DOM layer with snapdom (SPEC §8). The children a layer
 * leaves to layers of their own, and the rows its scroll boxes hide, become
 * empty shells: a shallow clone with the element's own computed style (so
 * grid placement, margins and size hold) made invisible. The options carry
 * no function, so snapdom keeps its memo: an unchanged layer comes back as
 * the same result, and its raster is reused instead of drawn again.
 */
import { yieldToMain } from './bitmap.js';
import { pruneDeadStyle, type StyledElement } from './deadStyle.js';
import { inheritingElements, leaveToInheritance } from './inheritedStyle.js';
import { phaseMark } from '../phaseMark.js';

/** What a layer plugin's hooks see of a capture (the style texts from `beforeRender` on). */
interface EngineContext {
  element: Element;
  clone?: HTMLElement | SVGElement | null;
  /** The class rules the SVG will embed; `beforeRender` may rewrite them. */
  classCSS?: string;
  baseCSS?: string;
  fontsCSS?: string;
  scrollbarCSS?: string;
}

/** A snapdom plugin, as far as layers use one. */
interface EnginePlugin {
  name: string;
  pure: boolean;
  resolveNode(node: Element, context: EngineContext): Node | undefined;
  afterClone(context: EngineContext): void;
  beforeClone(): Promise<void>;
  beforeRender(context: EngineContext): Promise<void>;
}

/** The capture options a layer passes; the hide key is ours, so the engine's memo changes with it. */
interface EngineOptions {
  fast: boolean;
  dpr: number;
  scale: number;
  outerShadows: boolean;
  plugins: EnginePlugin[];
  tradescriptHide: string;
}

/** A capture result, as far as layers use one. */
interface EngineResult {
  readonly meta: { vbW: number; vbH: number; contentX: number; contentY: number };
  /** Rasterizes into `canvas` when given (resized to fit), else into a new one. */
  toCanvas(options?: { canvas?: HTMLCanvasElement }): Promise<HTMLCanvasElement>;
}

/**
 * The part of `@zumer/snapdom`'s API layers use, typed here so the engine's
 * module is only ever named in the dynamic import that loads it (SPEC §12).
 */
export type LayerEngine = (element: Element, options: EngineOptions) => Promise<EngineResult>;

/** A rasterized layer and where its element's border box sits in it (CSS px). */
export interface LayerRaster {
  canvas: HTMLCanvasElement;
  /** The raster's size and the border box's offset in it, in CSS px. */
  width: number;
  height: number;
  offsetX: number;
  offsetY: number;
}

const SHELL = 'data-tradescript-shell';
/** What each layer element hides, read by the plugin during that element's clone. */
const shells = new WeakMap<Element, ReadonlySet<Element>>();
/** The last raster of each layer element, with the snapdom result it came from. */
const rasters = new WeakMap<Element, { result: EngineResult; raster: LayerRaster }>();

function shellOf(node: Element): Element {
  const shell = node.cloneNode(false) as Element;
  shell.setAttribute(SHELL, '');
  for (const attribute of ['src', 'srcset', 'poster']) shell.removeAttribute(attribute);
  return shell;
}

/**
 * Holds the cloned root at its element's border box: out of its parent, an
 * absolutely positioned element sized by its insets would otherwise take
 * another width (a chart legend then wraps or truncates).
 */
function pinBox(clone: HTMLElement | SVGElement, element: Element): void {
  const rect = element.getBoundingClientRect();
  const pins: Array<[string, string]> = [
    ['box-sizing', 'border-box'],
    ['width', `${rect.width}px`],
    ['height', `${rect.height}px`],
    ['min-width', '0'],
    ['min-height', '0'],
    ['max-width', 'none'],
    ['max-height', 'none'],
    ['margin', '0'],
    ['inset', 'auto'],
  ];
  for (const [name, value] of pins) clone.style.setProperty(name, value, 'important');
}

/** Presentation attributes that set a property the pruning asks about, as that property. */
const PRESENTATION: Record<string, string> = {
  transform: 'transform',
  'transform-origin': 'transform-origin',
  color: 'color',
  text: 'color',
  'text-decoration': 'text-decoration',
  background: 'background-image',
};

/**
 * What styles a clone besides snapdom's class rules, for {@link pruneDeadStyle}, and its tree for
 * {@link leaveToInheritance}: one walk of the clone for both.
 */
function styleSurroundings(clone: Element, context: EngineContext) {
  const all = [clone, ...clone.querySelectorAll('*')];
  const tree = inheritingElements(clone, all);
  const elements: StyledElement[] = tree.map(({ classes, style }, index) => {
    let styled = style;
    for (const [attribute, property] of Object.entries(PRESENTATION)) {
      const value = (all[index] as Element).getAttribute(attribute);
      if (value !== null) styled += `;${property}:${value}`;
    }
    return { classes, style: styled };
  });
  const styleElements = [...clone.querySelectorAll('style')].map((element) => element.textContent ?? '');
  return {
    elements,
    tree,
    elsewhere: [context.scrollbarCSS ?? '', context.fontsCSS ?? '', ...styleElements].join('\n'),
    base: context.baseCSS ?? '',
  };
}

/** Each layer element's last rewrite: the same style texts in the same surroundings and tree rewrite the same. */
const prunings = new WeakMap<Element, { css: string; key: string; classCSS: string; baseCSS: string }>();

/**
 * The class and base rules without their dead declarations ({@link pruneDeadStyle}) and with inherited
 * properties left to inheritance ({@link leaveToInheritance}), reused while nothing they read changes.
 */
function rewrittenStyle(element: Element, clone: Element, context: EngineContext, css: string) {
  const around = styleSurroundings(clone, context);
  const styles = around.elements.map(
    (each, i) => `${around.tree[i]?.tag} ${around.tree[i]?.parent} ${each.classes.join(' ')}\u0000${each.style}`,
  );
  const key = [around.base, around.elsewhere, ...styles].join('\u0001');
  const last = prunings.get(element);
  if (last?.css === css && last.key === key) return last;
  const pruned = pruneDeadStyle(css, around);
  const inherited = leaveToInheritance({ classCSS: pruned, baseCSS: around.base }, around.elsewhere, around.tree);
  const rewritten = { css, key, classCSS: inherited?.classCSS ?? pruned, baseCSS: inherited?.baseCSS ?? around.base };
  prunings.set(element, rewritten);
  return rewritten;
}

/** One plugin object for every capture: snapdom's memo keys on its identity. */
const shellPlugin: EnginePlugin = {
  name: 'tradescript-layer-shells',
  // Deterministic for a given hide set, and that set is part of the capture options.
  pure: true,
  resolveNode(node, context) {
    return shells.get(context.element)?.has(node) ? shellOf(node) : undefined;
  },
  // Awaited as well: snapdom's checks of its memo and its stylesheet scan, run before this hook, would otherwise
  // share a task with the clone's first slice (58 ms measured on the demo terminal's root layer).
  async beforeClone() {
    await yieldToMain();
    phaseMark('snapdom.clone');
  },
  afterClone(context) {
    const clone = context.clone;
    if (clone) {
      pinBox(clone, context.element);
      for (const shell of clone.querySelectorAll<HTMLElement | SVGElement>(`[${SHELL}]`)) {
        shell.removeAttribute(SHELL);
        shell.style.setProperty('visibility', 'hidden', 'important');
      }
    }
    phaseMark('snapdom.cloned', () => ({ elements: clone ? 1 + clone.querySelectorAll('*').length : 0 }));
  },
  // snapdom awaits its hooks: the work after its clone (pseudo-elements, this pruning, the SVG build) would
  // otherwise run as one task, the capture's longest (54 ms measured on the demo terminal's root layer).
  async beforeRender(context) {
    await yieldToMain();
    phaseMark('snapdom.prune');
    const { clone, classCSS } = context;
    if (clone && classCSS) {
      const rewritten = rewrittenStyle(context.element, clone, context, classCSS);
      context.classCSS = rewritten.classCSS;
      context.baseCSS = rewritten.baseCSS;
    }
    await yieldToMain();
    phaseMark('snapdom.render', () => ({ classCSS: classCSS?.length, kept: context.classCSS?.length }));
  },
};

/** A stable description of a hide set (child-index paths), so the options change exactly when it does. */
function hideKey(element: Element, hide: readonly Element[]): string {
  const paths = hide.map((node) => {
    const steps: number[] = [];
    for (let at: Element | null = node; at && at !== element; at = at.parentElement) {
      steps.push(at.parentElement ? Array.prototype.indexOf.call(at.parentElement.children, at) : -1);
    }
    return steps.reverse().join('.');
  });
  return paths.sort().join(' ');
}

/** A layer's element as the phase script prints it: its test id, else its tag and classes. */
function layerName(element: Element): string {
  const id = element.getAttribute('data-testid');
  return id ?? `${element.localName}.${[...element.classList].join('.')}`;
}

/** Rasterizes `element` at `ratio` with `hide` left as empty boxes; `root` says it is the widget itself. */
export async function rasterLayer(
  snapdom: LayerEngine,
  element: HTMLElement,
  hide: readonly Element[],
  ratio: number,
  root: boolean,
): Promise<LayerRaster> {
  shells.set(element, new Set(hide));
  // Each step starts a task of its own: chained on the last one's microtasks, they would add up into one long task.
  await yieldToMain();
  phaseMark('layer.clone', () => ({ layer: layerName(element), shells: hide.length }));
  const result = await snapdom(element, {
    fast: false,
    dpr: ratio,
    scale: 1,
    // A layer's shadow falls on the layers under it; the widget's own edge stays as before.
    outerShadows: !root,
    plugins: [shellPlugin],
    tradescriptHide: hideKey(element, hide),
  });
  phaseMark('layer.cloned');
  const cached = rasters.get(element);
  if (cached?.result === result) return cached.raster;
  const meta = result.meta;
  await yieldToMain();
  phaseMark('layer.decode');
  // Into the layer's last canvas (the engine resizes and clears it): a new canvas's first drawing allocates its
  // backing store, about a fifth of the demo terminal's decode phase (bench/snapshotPhases.mjs, "decode").
  const canvas = await result.toCanvas(cached ? { canvas: cached.raster.canvas } : undefined);
  phaseMark('layer.decoded');
  const raster = { canvas, width: meta.vbW, height: meta.vbH, offsetX: meta.contentX, offsetY: meta.contentY };
  rasters.set(element, { result, raster });
  return raster;
}
