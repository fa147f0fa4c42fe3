/**
 * Reading the style text snapdom generates: flat `selector{declarations}`
 * rules, and declaration lists (a rule's body, a style attribute). Anything
 * the reader is not sure of (a comment, an at-rule, nesting, an open string or
 * bracket, a declaration without a colon) reads as null, so callers leave
 * that text as it was.
 */

/** One declaration: its property name (lower case), its value without `!important`, and its text as written. */
export interface Declaration {
  readonly name: string;
  readonly value: string;
  readonly important: boolean;
  readonly text: string;
}

/** One rule: its selector, its text as written, and its declarations. */
export interface StyleRule {
  readonly selector: string;
  readonly text: string;
  readonly declarations: readonly Declaration[];
}

const IMPORTANT = /!\s*important\s*$/i;
/** What {@link walk} returns when the text ends before a stop, and when it cannot be read. */
const END = -1;
const UNREADABLE = -2;
/** The characters {@link walk} can stop at. */
const BRACE_OPEN = 1;
const BRACE_CLOSE = 2;
const SEMICOLON = 4;

/**
 * The index of the first character from `from` on, outside strings and
 * brackets, among `stops` (`BRACE_OPEN | BRACE_CLOSE | SEMICOLON`);
 * {@link END} when there is none and every string and bracket closes;
 * {@link UNREADABLE} at a comment or an open string or bracket.
 */
function walk(text: string, from: number, stops: number): number {
  let depth = 0;
  let quote = 0;
  for (let i = from; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (quote) {
      if (c === 0x5c) i++;
      else if (c === quote) quote = 0;
      continue;
    }
    switch (c) {
      case 0x22: // "
      case 0x27: // '
        quote = c;
        break;
      case 0x5c: // \
        i++;
        break;
      case 0x28: // (
      case 0x5b: // [
        depth++;
        break;
      case 0x29: // )
      case 0x5d: // ]
        if (--depth < 0) return UNREADABLE;
        break;
      case 0x2f: // /
        if (text.charCodeAt(i + 1) === 0x2a) return UNREADABLE;
        break;
      case 0x7b: // {
        if (depth === 0 && stops & BRACE_OPEN) return i;
        break;
      case 0x7d: // }
        if (depth === 0 && stops & BRACE_CLOSE) return i;
        break;
      case 0x3b: // ;
        if (depth === 0 && stops & SEMICOLON) return i;
        break;
    }
  }
  return quote || depth !== 0 ? UNREADABLE : END;
}

/**
 * The declarations from `from` up to a top-level `}` (or the end of `text`),
 * and where they stop; null when one of them cannot be read.
 */
function readBlock(text: string, from: number): { declarations: Declaration[]; end: number } | null {
  const declarations: Declaration[] = [];
  for (let start = from; ;) {
    const end = walk(text, start, SEMICOLON | BRACE_OPEN | BRACE_CLOSE);
    if (end === UNREADABLE || text.charCodeAt(end) === 0x7b) return null;
    const piece = text.slice(start, end === END ? text.length : end).trim();
    if (piece) {
      const declaration = parseDeclaration(piece);
      if (!declaration) return null;
      declarations.push(declaration);
    }
    if (end === END || text.charCodeAt(end) === 0x7d) return { declarations, end };
    start = end + 1;
  }
}

/**
 * Blocks read lately: a layer captured again brings mostly the same rule
 * bodies and style attributes, and reading them is most of the pruning's time.
 */
const readBlocks = new Map<string, readonly Declaration[] | null>();
const READ_BLOCKS_KEPT = 8192;

/** The declarations of a rule body or style attribute, or null when one of them cannot be read. */
export function parseDeclarations(block: string): readonly Declaration[] | null {
  const known = readBlocks.get(block);
  if (known !== undefined) return known;
  const read = readBlock(block, 0);
  const declarations = read && read.end === END ? read.declarations : null;
  if (readBlocks.size >= READ_BLOCKS_KEPT) readBlocks.clear();
  readBlocks.set(block, declarations);
  return declarations;
}

const NAME = /^-?-?[A-Za-z_][\w-]*$/;

function parseDeclaration(text: string): Declaration | null {
  const colon = text.indexOf(':');
  const name = text.slice(0, Math.max(0, colon)).trim();
  if (!NAME.test(name)) return null;
  const raw = text.slice(colon + 1).trim();
  const important = raw.includes('!') && IMPORTANT.test(raw);
  const value = important ? raw.replace(IMPORTANT, '').trim() : raw;
  return { name: name.startsWith('--') ? name : name.toLowerCase(), value, important, text };
}

/** The flat rules of a style sheet's text, or null when it holds anything else (an at-rule, nesting, a comment). */
export function parseRules(css: string): StyleRule[] | null {
  const rules: StyleRule[] = [];
  for (let at = 0; ;) {
    while (at < css.length && css.charCodeAt(at) <= 0x20) at++;
    if (at === css.length) return rules;
    const open = walk(css, at, BRACE_OPEN | BRACE_CLOSE | SEMICOLON);
    if (open < 0 || css.charCodeAt(open) !== 0x7b) return null;
    const selector = css.slice(at, open).trim();
    if (!selector || selector.startsWith('@')) return null;
    const close = walk(css, open + 1, BRACE_CLOSE | BRACE_OPEN);
    if (close < 0 || css.charCodeAt(close) !== 0x7d) return null;
    const declarations = parseDeclarations(css.slice(open + 1, close));
    if (!declarations) return null;
    rules.push({ selector, text: css.slice(at, close + 1), declarations });
    at = close + 1;
  }
}

/** `rule` with `declarations` (their texts) as its body: its own text when they are the ones it has. */
export function ruleWith(rule: StyleRule, declarations: readonly string[]): string {
  const same =
    declarations.length === rule.declarations.length &&
    declarations.every((text, i) => text === rule.declarations[i]?.text);
  return same ? rule.text : `${rule.selector}{${declarations.join(';')}}`;
}

/**
 * Every declaration anywhere in `css`, whatever its rules (at-rules and
 * nesting included), for questions like "does anything set this property";
 * null when the text cannot be read (a comment, an open string or bracket,
 * an at-rule statement such as `@import`).
 */
export function declarationsAnywhere(css: string): Declaration[] | null {
  const found: Declaration[] = [];
  for (let start = 0; start <= css.length;) {
    const end = walk(css, start, BRACE_OPEN | SEMICOLON | BRACE_CLOSE);
    if (end === UNREADABLE) return null;
    // What runs up to a `{` is a prelude (a selector, an at-rule's condition), never a declaration.
    if (end === END || css[end] !== '{') {
      const declarations = parseDeclarations(css.slice(start, end === END ? css.length : end));
      if (!declarations) return null;
      found.push(...declarations);
    }
    start = end === END ? css.length + 1 : end + 1;
  }
  return found;
}
