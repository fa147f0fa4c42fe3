/**
 * Leaving inherited properties to inheritance in a layer's SVG (SPEC §8,
 * §12). snapdom's base rules give every element type the initial value of
 * every property, so each class rule restates the page's font stack, colour,
 * smoothing and line height, though the element's parent has the same: about
 * a third of the root layer's style sheet, which the image decode parses in
 * full (bench/layerDecode.mjs).
 *
 * The base rules set each inherited property to `inherit` instead (an author
 * rule still outweighs the user agent's sheet, as before), and a class rule
 * states such a property only where its element's value differs from its
 * parent's, or the parent's cannot be known: the layer's root, whose parent
 * is snapdom's wrapper. Every element's value stays what it was, by induction
 * from the root: each value in the clone is a resolved one, so inheriting the
 * parent's equal value gives the same. Whatever cannot be proven so (a rule
 * or style this does not read, an `!important`, a `var()`, a shorthand that
 * sets one of these properties, a class shared by elements that would need
 * different values) leaves the capture as it was.
 */
import {
  declarationsAnywhere,
  parseDeclarations,
  parseRules,
  ruleWith,
  type Declaration,
  type StyleRule,
} from './styleText.js';

/** Inherited longhands this leaves to inheritance; none of them is set by a shorthand other than `font` and `all`. */
const INHERITED = new Set([
  'color',
  'color-scheme',
  'font-family',
  'font-size',
  'font-style',
  'font-weight',
  'font-stretch',
  'line-height',
  '-webkit-font-smoothing',
  '-webkit-text-fill-color',
  'letter-spacing',
  'word-spacing',
  'text-align',
  'text-indent',
  'text-transform',
  'text-shadow',
  'text-rendering',
  'visibility',
  'word-break',
  'tab-size',
  'hyphens',
  'border-collapse',
  'border-spacing',
  'caption-side',
  'empty-cells',
]);
/** Shorthands that set some of {@link INHERITED}: a capture that has one anywhere is left as it was. */
const COVERING = new Set(['font', 'all']);
/** Values whose meaning depends on more than the text: never counted equal to the parent's. */
const CONTEXTUAL = /var\(|env\(|attr\(|inherit|initial|unset|revert/i;

/** One element of the clone, in document order. */
export interface InheritingElement {
  /** Its local name, as the base rules' type selectors name it. */
  readonly tag: string;
  readonly classes: readonly string[];
  readonly style: string;
  /** Its parent's index in the same list; -1 for the layer's root (its parent is snapdom's wrapper). */
  readonly parent: number;
}

/** The style texts a capture's SVG embeds that this rewrites. */
export interface InheritedStyleTexts {
  readonly classCSS: string;
  readonly baseCSS: string;
}

/** `@font-face` blocks: their descriptors style no element. */
const FONT_FACE = /@font-face\s*\{[^{}]*\}/gi;

/**
 * The clone's elements as {@link leaveToInheritance} reads them, from `all`: the clone itself first, then its
 * descendants in document order (a caller that walks them anyway passes its list).
 */
export function inheritingElements(
  clone: Element,
  all: readonly Element[] = [clone, ...clone.querySelectorAll('*')],
): InheritingElement[] {
  const indexes = new Map<Element, number>(all.map((element, index) => [element, index]));
  return all.map((element) => ({
    tag: element.localName,
    classes: (element.getAttribute('class') ?? '').split(/\s+/),
    style: element.getAttribute('style') ?? '',
    parent: element === clone || !element.parentElement ? -1 : (indexes.get(element.parentElement) ?? -1),
  }));
}

const SINGLE_CLASS = /^\.(-?[A-Za-z_][\w-]*)$/;
/** A pseudo-element of one class: its values inherit from its element, whichever way that element got them. */
const CLASS_PSEUDO = /^\.-?[A-Za-z_][\w-]*::?[A-Za-z-]+$/;
const TYPE_LIST = /^[A-Za-z][\w-]*(\s*,\s*[A-Za-z][\w-]*)*$/;
/** An element's value that cannot be known from the capture's text (a user-agent default, a `var()`). */
const UNKNOWN = '\u0000';

type Values = Map<string, string>;

/** The last value of each {@link INHERITED} name in `declarations`; null on `!important` or a covering shorthand. */
function inheritedValues(declarations: readonly Declaration[], important: boolean): Values | null {
  const values: Values = new Map();
  for (const d of declarations) {
    if (COVERING.has(d.name)) return null;
    if (!INHERITED.has(d.name)) continue;
    if (d.important && !important) return null;
    values.set(d.name, CONTEXTUAL.test(d.value) ? UNKNOWN : d.value);
  }
  return values;
}

/** The base rules' value of each inherited name by type; null unless they are plain type selectors. */
function baseByTag(rules: readonly StyleRule[]): Map<string, Values> | null {
  const byTag = new Map<string, Values>();
  for (const rule of rules) {
    if (!TYPE_LIST.test(rule.selector)) return null;
    const values = inheritedValues(rule.declarations, false);
    if (!values) return null;
    for (const tag of rule.selector.split(',')) {
      const name = tag.trim().toLowerCase();
      const own = byTag.get(name) ?? new Map<string, string>();
      for (const [property, value] of values) own.set(property, value);
      byTag.set(name, own);
    }
  }
  return byTag;
}

/** Class rules by class name, with their inherited values; null on any other rule that could reach an element. */
function classRules(rules: readonly StyleRule[]): Map<string, { rule: StyleRule; values: Values }> | null {
  const byClass = new Map<string, { rule: StyleRule; values: Values }>();
  for (const rule of rules) {
    const name = SINGLE_CLASS.exec(rule.selector)?.[1];
    if (name === undefined) {
      if (reaches(rule.declarations) && !CLASS_PSEUDO.test(rule.selector)) return null;
      continue;
    }
    const values = inheritedValues(rule.declarations, false);
    if (!values || byClass.has(name)) return null;
    byClass.set(name, { rule, values });
  }
  return byClass;
}

/** Does one of `declarations` set an inherited property this reads? */
function reaches(declarations: readonly Declaration[]): boolean {
  return declarations.some((d) => INHERITED.has(d.name) || COVERING.has(d.name));
}

/** Could a rule of `css` set an inherited property on an element (not only on one class's pseudo-element)? */
function reachesElements(css: string): boolean {
  const rules = parseRules(css);
  if (rules) return rules.some((rule) => reaches(rule.declarations) && !CLASS_PSEUDO.test(rule.selector));
  const anywhere = declarationsAnywhere(css);
  return !anywhere || reaches(anywhere);
}

/** Where one element's inherited values come from in the capture as snapdom wrote it. */
interface Seen {
  readonly classRule: string | null;
  readonly inline: Values;
  /** Its class rule's values (empty without one). */
  readonly ruled: Values;
  /** The base rules' values for its type (empty when none reaches it). */
  readonly base: Values;
  /** A base rule reaches its type. */
  readonly typed: boolean;
  readonly unrendered: boolean;
}

const EMPTY: Values = new Map();
const NOTHING: Omit<Seen, 'unrendered'> = { classRule: null, inline: EMPTY, ruled: EMPTY, base: EMPTY, typed: false };

/** An element's value of `property` today: its style attribute's, else its class rule's, else the base's. */
function valueOf(element: Seen, property: string): string | undefined {
  return element.inline.get(property) ?? element.ruled.get(property) ?? element.base.get(property);
}

/**
 * `texts` with inherited properties left to inheritance, as the module's
 * comment says; null (leave the capture as it was) when any of it, of
 * `elsewhere` (every other style text the SVG holds) or of an element's style
 * cannot be read or proven.
 */
export function leaveToInheritance(
  texts: InheritedStyleTexts,
  elsewhere: string,
  elements: readonly InheritingElement[],
): InheritedStyleTexts | null {
  const classParsed = parseRules(texts.classCSS);
  const baseParsed = parseRules(texts.baseCSS);
  if (!classParsed || !baseParsed || reachesElements(elsewhere.replace(FONT_FACE, ''))) return null;
  const base = baseByTag(baseParsed);
  const classes = classRules(classParsed);
  if (!base || !classes) return null;

  // Where each element's inherited values come from today: its style attribute, else its class rule, else the base.
  const seen: Seen[] = [];
  for (const element of elements) {
    const inlineDeclarations = element.style ? parseDeclarations(element.style) : [];
    // snapdom's `display: none !important` on what it leaves out: nothing in it paints, whatever it inherits.
    const unrendered =
      (element.parent >= 0 && seen[element.parent]?.unrendered === true) ||
      (inlineDeclarations?.some((d) => d.name === 'display' && d.important && /^none$/i.test(d.value)) ?? false);
    if (unrendered) {
      seen.push({ ...NOTHING, unrendered });
      continue;
    }
    const inline = inlineDeclarations && inheritedValues(inlineDeclarations, true);
    const ruled = element.classes.filter((name) => classes.has(name));
    if (!inline || ruled.length > 1) return null;
    const classRule = ruled[0] ?? null;
    const typeValues = base.get(element.tag.toLowerCase());
    seen.push({
      classRule,
      inline,
      ruled: classRule === null ? EMPTY : (classes.get(classRule) as { values: Values }).values,
      base: typeValues ?? EMPTY,
      typed: typeValues !== undefined,
      unrendered,
    });
  }

  // What each class rule must state: a value some element of it cannot take from its parent.
  const stated = new Map<string, Map<string, string>>();
  for (const name of classes.keys()) stated.set(name, new Map());
  for (const [index, element] of elements.entries()) {
    const mine = seen[index] as Seen;
    if (mine.unrendered) continue;
    const parent = element.parent >= 0 ? seen[element.parent] : undefined;
    for (const property of INHERITED) {
      if (mine.inline.has(property)) continue;
      const value = valueOf(mine, property);
      if (value === undefined) continue;
      // No base rule reaches an element of another type: it keeps what its rule says, or else inherits as before.
      const needed = !mine.typed || value === UNKNOWN || (parent ? valueOf(parent, property) : UNKNOWN) !== value;
      if (!needed || (!mine.typed && !mine.ruled.has(property))) continue;
      if (mine.classRule === null) return null;
      const already = stated.get(mine.classRule) as Map<string, string>;
      if (already.has(property) && already.get(property) !== value) return null;
      already.set(property, value);
    }
  }
  // A class whose elements took the base's value must give each the same one, now that the base no longer does.
  for (const mine of seen) {
    if (mine.classRule === null) continue;
    for (const [property, value] of stated.get(mine.classRule) as Map<string, string>) {
      if (mine.inline.has(property) || mine.ruled.has(property)) continue;
      if (!mine.typed || mine.base.get(property) !== value) return null;
    }
  }

  let classCSS = '';
  for (const rule of classParsed) {
    const name = SINGLE_CLASS.exec(rule.selector)?.[1];
    if (name === undefined) {
      classCSS += rule.text;
      continue;
    }
    const needs = stated.get(name) as Map<string, string>;
    const kept = rule.declarations.filter((d) => !INHERITED.has(d.name) || needs.has(d.name));
    const declared = new Set(kept.map((d) => d.name));
    const added = [...needs].filter(([property]) => !declared.has(property)).map(([p, v]) => `${p}:${v}`);
    const declarations = [...kept.map((d) => d.text), ...added];
    if (declarations.length > 0) classCSS += ruleWith(rule, declarations);
  }
  let baseCSS = '';
  for (const rule of baseParsed) {
    baseCSS += ruleWith(
      rule,
      rule.declarations.map((d) => (INHERITED.has(d.name) ? `${d.name}:inherit` : d.text)),
    );
  }
  return { classCSS, baseCSS };
}
