/**
 * Dropping what cannot change a pixel from the class rules snapdom embeds in
 * a layer's SVG (SPEC §8, §12): the image decode parses every byte of them,
 * and most of the root layer's ~144 KB restate defaults that paint nothing.
 *
 * A declaration goes only when the capture proves it inert in a static
 * raster, judged against everything that could style the same element there:
 * its class rule (snapdom gives each cloned element one), that element's style
 * attribute and presentation attributes, every other rule in the capture (read
 * as if it reached every element), and snapdom's base rules (type selectors,
 * which a class rule outweighs). The user agent's sheet is known: it styles
 * focus (never in an image) and links' decorations (in `currentcolor`), and
 * sets no transform, outline, background image or text stroke otherwise.
 *
 * - Never painted: transitions (nothing changes after the image loads),
 *   cursor, pointer-events, touch-action, user-select, tap highlight, caret
 *   (nothing is focused), overscroll and scroll behaviour.
 * - An animation's timing, when nothing names an animation for the element.
 * - Outline colour, width and offset, when no outline style can apply.
 * - Transform origin, when no transform, rotate, scale, translate or offset path can apply.
 * - Background position, size and repeat, when no background image can apply.
 * - Text stroke, when every stroke width anywhere is zero (it is inherited).
 * - Text decoration colour equal to the rule's own colour (its initial value is
 *   `currentcolor`), when nothing else sets that colour, the decoration or `color`.
 *
 * Custom properties stay (a `var()` may read them), and any value with `var()`
 * or `inherit` counts as painting. Text it cannot read comes back unchanged.
 */
import {
  declarationsAnywhere,
  parseDeclarations,
  parseRules,
  ruleWith,
  type Declaration,
  type StyleRule,
} from './styleText.js';

/** One cloned element as the pruning sees it. */
export interface StyledElement {
  readonly classes: readonly string[];
  /** Its style attribute, plus its presentation attributes written as declarations. */
  readonly style: string;
}

/** What else styles the capture besides the class rules. */
export interface StyleSurroundings {
  readonly elements: readonly StyledElement[];
  /** Rules that may reach any element with any weight: style elements in the clone, scrollbar and font CSS. */
  readonly elsewhere: string;
  /** snapdom's base rules: type selectors only, never `!important` (otherwise they count as elsewhere). */
  readonly base: string;
}

const NEVER_PAINTED = new Set([
  'cursor',
  'pointer-events',
  'touch-action',
  'user-select',
  '-webkit-user-select',
  '-webkit-user-drag',
  '-webkit-tap-highlight-color',
  'caret-color',
  'scroll-behavior',
  'overscroll-behavior',
  'overscroll-behavior-x',
  'overscroll-behavior-y',
  'overscroll-behavior-block',
  'overscroll-behavior-inline',
]);

/** A declaration family that paints only when some other property says so. */
interface Dependent {
  readonly drops: ReadonlySet<string>;
  /** The properties that turn the family on, when their value is not `none`. */
  readonly enablers: readonly string[];
}

const DEPENDENTS: readonly Dependent[] = [
  {
    drops: new Set([
      'animation-duration',
      'animation-timing-function',
      'animation-delay',
      'animation-iteration-count',
      'animation-direction',
      'animation-play-state',
      'animation-fill-mode',
      'animation-composition',
    ]),
    enablers: ['animation', 'animation-name'],
  },
  { drops: new Set(['outline-color', 'outline-width', 'outline-offset']), enablers: ['outline', 'outline-style'] },
  {
    drops: new Set(['transform-origin']),
    enablers: ['transform', 'rotate', 'scale', 'translate', 'offset', 'offset-path'],
  },
  {
    drops: new Set([
      'background-position',
      'background-position-x',
      'background-position-y',
      'background-size',
      'background-repeat',
    ]),
    enablers: ['background', 'background-image'],
  },
];

const STROKE = new Set(['-webkit-text-stroke', '-webkit-text-stroke-width', '-webkit-text-stroke-color']);
const DECORATION_COLOR = 'text-decoration-color';
/** What must stay unset around a rule for its decoration colour to equal its colour once dropped. */
const DECORATION_GUARDS = ['color', 'text-decoration', DECORATION_COLOR, 'all'];

/** Everything known about the class rules' surroundings, read once per capture. */
interface Context {
  /** Names set at all by a declaration that may reach any element (base rules not included). */
  readonly anywhere: ReadonlySet<string>;
  readonly base: ReadonlySet<string>;
  /** Style attributes by the class rule their element carries. */
  readonly inline: ReadonlyMap<string, readonly Declaration[]>;
  /** The families no declaration passes on by `inherit`, and that nothing sets for every element. */
  readonly live: readonly Dependent[];
  readonly strokeless: boolean;
  readonly decorations: boolean;
}

const SINGLE_CLASS = /^\.(-?[A-Za-z_][\w-]*)$/;

function classOf(rule: StyleRule): string | null {
  return SINGLE_CLASS.exec(rule.selector)?.[1] ?? null;
}

function isNone(value: string): boolean {
  return value.trim().toLowerCase() === 'none';
}

/** Does `value` give a text stroke width of zero (for the shorthand: its one width, or none)? */
function zeroStroke(name: string, value: string): boolean {
  if (name === '-webkit-text-stroke-color') return true;
  if (/var\(|env\(|attr\(|inherit|unset|revert/i.test(value)) return false;
  const widths = value
    .split(/\s+(?![^(]*\))/)
    .filter((token) => /^([+-]?[\d.]|thin$|medium$|thick$|calc\()/i.test(token));
  if (name === '-webkit-text-stroke' && widths.length === 0) return true;
  return widths.length === 1 && /^0(\.0+)?(px)?$/i.test(widths[0] as string);
}

/** Base rules pass only as type selectors without `!important`; otherwise null. */
function baseDeclarations(base: string): Declaration[] | null {
  const rules = parseRules(base);
  if (!rules) return null;
  const typeOnly = /^[A-Za-z][\w-]*(\s*,\s*[A-Za-z][\w-]*)*$/;
  if (!rules.every((rule) => typeOnly.test(rule.selector) && rule.declarations.every((d) => !d.important))) return null;
  return rules.flatMap((rule) => rule.declarations);
}

/** Each element's style attribute under the one class rule it carries; null if one carries two, or a style cannot be read. */
function inlineByRule(
  rules: readonly StyleRule[],
  elements: readonly StyledElement[],
): Map<string, Declaration[]> | null {
  const inline = new Map<string, Declaration[]>();
  for (const rule of rules) {
    const name = classOf(rule);
    if (name !== null) inline.set(name, []);
  }
  const loose: Declaration[] = [];
  for (const element of elements) {
    const declarations = element.style ? parseDeclarations(element.style) : [];
    const own = element.classes.filter((name) => inline.has(name));
    // Two class rules on one element would weigh against each other: not a capture this reads.
    if (!declarations || own.length > 1) return null;
    (own[0] === undefined ? loose : (inline.get(own[0]) as Declaration[])).push(...declarations);
  }
  // Styles of elements without a class rule reach the others only by inheritance.
  inline.set('', loose);
  return inline;
}

/** Reads `inherit` (or `all: inherit`) somewhere: the value of `names` passes on to another element. */
function inherits(d: Declaration, names: ReadonlySet<string>): boolean {
  return (names.has(d.name) || d.name === 'all') && /inherit/i.test(d.value);
}

/** The declarations that may reach any element, and the base rules' own (empty when they count as the former). */
function wideAndBase(rules: readonly StyleRule[], around: StyleSurroundings): [Declaration[], Declaration[]] | null {
  const elsewhere = declarationsAnywhere(around.elsewhere);
  if (!elsewhere) return null;
  const wide = [...elsewhere];
  for (const rule of rules) if (classOf(rule) === null) wide.push(...rule.declarations);
  const base = baseDeclarations(around.base);
  if (base) return [wide, base];
  const loose = declarationsAnywhere(around.base);
  return loose ? [[...wide, ...loose], []] : null;
}

function readContext(rules: readonly StyleRule[], around: StyleSurroundings): Context | null {
  const inline = inlineByRule(rules, around.elements);
  const sources = inline && wideAndBase(rules, around);
  if (!inline || !sources) return null;
  const [wide, base] = sources;
  const everywhere = new Set<string>();
  for (const d of [...wide, ...base]) if (!isNone(d.value)) everywhere.add(d.name);
  const passedOn = new Set<Dependent>();
  const decorationNames = new Set([DECORATION_COLOR, 'text-decoration']);
  let strokeless = true;
  let decorations = true;
  const visit = (d: Declaration): void => {
    if (STROKE.has(d.name) && !zeroStroke(d.name, d.value)) strokeless = false;
    if (!d.value.includes('inherit')) return;
    for (const family of DEPENDENTS) if (inherits(d, family.drops)) passedOn.add(family);
    if (inherits(d, decorationNames)) decorations = false;
  };
  for (const rule of rules) rule.declarations.forEach(visit);
  for (const declarations of [wide, base, ...inline.values()]) declarations.forEach(visit);
  const live = DEPENDENTS.filter(
    (family) => !passedOn.has(family) && ![...family.enablers, 'all'].some((name) => everywhere.has(name)),
  );
  return {
    anywhere: new Set(wide.map((d) => d.name)),
    base: new Set(base.map((d) => d.name)),
    inline,
    live,
    strokeless,
    decorations,
  };
}

/** Could a property in `names` (or `all`) reach the element of a rule with these declarations, other than as `none`? */
function enabled(own: readonly Declaration[], inline: readonly Declaration[], names: readonly string[]): boolean {
  const on = (d: Declaration): boolean => (names.includes(d.name) || d.name === 'all') && !isNone(d.value);
  return own.some(on) || inline.some(on);
}

/** The one declaration of `name` in `declarations`, or null if there are none or several. */
function single(declarations: readonly Declaration[], name: string): Declaration | null {
  const found = declarations.filter((d) => d.name === name);
  return found.length === 1 ? (found[0] as Declaration) : null;
}

function squeeze(value: string): string {
  return value.replace(/\s+/g, '').toLowerCase();
}

/** Is the rule's text decoration colour its colour, which `currentcolor` (the initial value) gives back? */
function decorationIsColor(context: Context, own: readonly Declaration[], inline: readonly Declaration[]): boolean {
  const decoration = single(own, DECORATION_COLOR);
  const color = single(own, 'color');
  if (!decoration || !color || /var\(|env\(|currentcolor|inherit|unset|revert|initial/i.test(color.value)) return false;
  const guarded = (d: Declaration): boolean => DECORATION_GUARDS.includes(d.name);
  return (
    squeeze(decoration.value) === squeeze(color.value) &&
    !own.some((d) => d.name === 'text-decoration' || d.name === 'all') &&
    !inline.some(guarded) &&
    !DECORATION_GUARDS.some((name) => context.anywhere.has(name)) &&
    !['text-decoration', DECORATION_COLOR, 'all'].some((name) => context.base.has(name))
  );
}

/** The names this capture lets go from the rule of class `className`, beyond those never painted. */
function deadIn(context: Context, rule: StyleRule, className: string): Set<string> {
  const dead = new Set<string>();
  const inline = context.inline.get(className) ?? [];
  for (const family of context.live) {
    if (!enabled(rule.declarations, inline, family.enablers)) for (const name of family.drops) dead.add(name);
  }
  if (context.strokeless) for (const name of STROKE) dead.add(name);
  if (context.decorations && decorationIsColor(context, rule.declarations, inline)) dead.add(DECORATION_COLOR);
  return dead;
}

function neverPainted(name: string): boolean {
  return NEVER_PAINTED.has(name) || name === 'transition' || name.startsWith('transition-');
}

/**
 * `css` (snapdom's class rules for one capture) without the declarations
 * that cannot paint there, and without rules left empty; unchanged when any
 * of it, or of `around`, cannot be read.
 */
export function pruneDeadStyle(css: string, around: StyleSurroundings): string {
  const rules = parseRules(css);
  const context = rules && readContext(rules, around);
  if (!rules || !context) return css;
  let out = '';
  for (const rule of rules) {
    const className = classOf(rule);
    const dead = className === null ? null : deadIn(context, rule, className);
    const kept = dead ? rule.declarations.filter((d) => !neverPainted(d.name) && !dead.has(d.name)) : rule.declarations;
    if (kept.length > 0)
      out += ruleWith(
        rule,
        kept.map((d) => d.text),
      );
  }
  return out;
}
