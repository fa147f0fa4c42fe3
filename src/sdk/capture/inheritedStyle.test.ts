import { describe, expect, it } from 'vitest';
import { leaveToInheritance, type InheritingElement } from './inheritedStyle.js';

/** snapdom's base rules as it writes them: every type the clone holds, every property at its initial value. */
const BASE = 'div,span,th { color:rgb(0, 0, 0);font-family:"Times New Roman";display:inline; }th { text-align:start; }';
const INHERITING_BASE = 'div,span,th{color:inherit;font-family:inherit;display:inline}th{text-align:inherit}';
/** The same with colour alone, so that a root rule needs nothing added beyond it. */
const COLOR_BASE = 'div,span,th { color:rgb(0, 0, 0);display:inline; }th { text-align:start; }';

const element = (tag: string, cls: string, parent: number, style = ''): InheritingElement => ({
  tag,
  classes: cls ? ['widget-part', cls] : ['widget-part'],
  style,
  parent,
});

function rewrite(classCSS: string, elements: InheritingElement[], base = COLOR_BASE, elsewhere = '') {
  return leaveToInheritance({ classCSS, baseCSS: base }, elsewhere, elements);
}

describe('SPEC §8 §12 inherited style left to inheritance in a layer raster', () => {
  it("drops what an element's parent already gives it, keeps what differs, and the root keeps everything", () => {
    const css =
      '.c1{color:rgb(1, 2, 3);font-family:Inter, sans-serif;width:10px}' +
      '.c2{color:rgb(1, 2, 3);font-family:Inter, sans-serif;height:4px}' +
      '.c3{color:rgb(9, 9, 9);font-family:Inter, sans-serif}';
    const tree = [element('div', 'c1', -1), element('div', 'c2', 0), element('span', 'c3', 1)];
    expect(rewrite(css, tree, BASE)).toEqual({
      classCSS:
        '.c1{color:rgb(1, 2, 3);font-family:Inter, sans-serif;width:10px}.c2{height:4px}.c3{color:rgb(9, 9, 9)}',
      baseCSS: INHERITING_BASE,
    });
  });

  it("states the base's value where an element took it but its parent has another, now that the base inherits", () => {
    // The child's colour was the base's black, under a red parent: inheriting would turn it red.
    const css = '.c1{color:rgb(255, 0, 0);font-family:Inter}.c2{font-family:Inter;width:1px}';
    const tree = [element('div', 'c1', -1), element('span', 'c2', 0)];
    expect(rewrite(css, tree)?.classCSS).toBe(
      '.c1{color:rgb(255, 0, 0);font-family:Inter}.c2{width:1px;color:rgb(0, 0, 0)}',
    );
  });

  it('keeps a class rule whole when one of its elements cannot take the value from its parent', () => {
    const css = '.c1{color:rgb(255, 0, 0)}.c2{color:rgb(0, 0, 255)}.c3{color:rgb(0, 0, 255)}';
    // c3 sits under a red c1 and under a blue c2: the second could inherit, the first cannot.
    const tree = [
      element('div', 'c1', -1),
      element('span', 'c3', 0),
      element('div', 'c2', 0),
      element('span', 'c3', 2),
    ];
    expect(rewrite(css, tree)?.classCSS).toBe(css);
  });

  it('compares with what the parent shows: its style attribute over its class rule', () => {
    const css = '.c1{color:rgb(1, 1, 1)}.c2{color:rgb(2, 2, 2)}';
    const under = (style: string) => [element('div', 'c1', -1, style), element('span', 'c2', 0)];
    expect(rewrite(css, under('color: rgb(2, 2, 2)'))?.classCSS).toBe('');
    expect(rewrite(css, under(''))?.classCSS).toBe(css);
  });

  it('an element its style attribute sets needs nothing from its rule, and its children compare with that', () => {
    const css = '.c1{color:rgb(1, 1, 1)}.c2{color:rgb(1, 1, 1)}.c3{color:rgb(5, 5, 5)}';
    const tree = [element('div', 'c1', -1), element('div', 'c2', 0, 'color:rgb(5, 5, 5)'), element('span', 'c3', 1)];
    expect(rewrite(css, tree)?.classCSS).toBe('.c1{color:rgb(1, 1, 1)}');
  });

  it('keeps var() values, and what a child of one states', () => {
    const css = '.c1{color:var(--accent)}.c2{color:var(--accent)}';
    const tree = [element('div', 'c1', -1), element('span', 'c2', 0)];
    expect(rewrite(css, tree)?.classCSS).toBe(css);
  });

  it('leaves an element no base rule reaches (an SVG shape) its own values; its children compare with those', () => {
    const css = '.c1{color:rgb(1, 1, 1)}.c2{color:rgb(1, 1, 1)}.c3{color:rgb(3, 3, 3)}.c4{color:rgb(1, 1, 1)}';
    const tree = [
      element('div', 'c1', -1),
      element('text', 'c2', 0),
      element('span', 'c3', 1),
      element('span', 'c4', 1),
      element('path', '', 0),
    ];
    expect(rewrite(css, tree)?.classCSS).toBe('.c1{color:rgb(1, 1, 1)}.c2{color:rgb(1, 1, 1)}.c3{color:rgb(3, 3, 3)}');
  });

  it('ignores what snapdom leaves out (display: none !important) and what its descendants would inherit', () => {
    const css = '.c1{color:rgb(1, 1, 1)}.c2{color:rgb(1, 1, 1)}';
    const tree = [element('div', 'c1', -1), element('div', '', 0, 'display: none !important'), element('span', '', 1)];
    expect(rewrite(css, tree)?.classCSS).toBe('.c1{color:rgb(1, 1, 1)}');
    // Without the flag it could show: an element without a class rule would then need black stated.
    const shown = [element('div', 'c1', -1), element('div', '', 0, 'display: none'), element('span', '', 1)];
    expect(rewrite(css, shown)).toBeNull();
  });

  it("keeps pseudo-element rules as written, and allows other texts' rules that style one class's pseudo-element", () => {
    const css = '.c1{color:rgb(1, 1, 1)}.c1::before{content:"x";color:rgb(7, 7, 7)}.c2{color:rgb(1, 1, 1)}';
    const tree = [element('div', 'c1', -1), element('span', 'c2', 0)];
    const placeholder = '.snapdom-ph-1::placeholder{color:rgb(117, 117, 117)!important}';
    expect(rewrite(css, tree, COLOR_BASE, placeholder)?.classCSS).toBe(
      '.c1{color:rgb(1, 1, 1)}.c1::before{content:"x";color:rgb(7, 7, 7)}',
    );
    expect(rewrite(css, tree, COLOR_BASE, '@font-face{font-family:Inter;src:url(a.woff2)}')).not.toBeNull();
  });

  it('leaves the capture as it was whenever it cannot prove every value kept', () => {
    const tree = [element('div', 'c1', -1), element('span', 'c2', 0)];
    const plain = '.c1{color:rgb(1, 1, 1)}.c2{color:rgb(1, 1, 1)}';
    // An !important inherited value, a shorthand that sets inherited longhands, and a second class rule on one element.
    expect(rewrite('.c1{color:rgb(1, 1, 1)!important}.c2{color:rgb(1, 1, 1)}', tree)).toBeNull();
    expect(rewrite('.c1{font:12px Inter}.c2{color:rgb(1, 1, 1)}', tree)).toBeNull();
    expect(
      rewrite(plain, [element('div', 'c1', -1), { ...element('span', 'c2', 0), classes: ['c1', 'c2'] }]),
    ).toBeNull();
    // Another text's rule that may set an inherited property on any element, or one this cannot read.
    expect(rewrite(plain, tree, BASE, 'span{color:red}')).toBeNull();
    expect(rewrite(plain, tree, BASE, '/* a comment */')).toBeNull();
    // A rule of the class text that reaches elements otherwise than by one class.
    expect(rewrite(`${plain}div>span{color:red}`, tree)).toBeNull();
    // Base rules that are not plain type selectors.
    expect(rewrite(plain, tree, '.x{color:rgb(0, 0, 0)}')).toBeNull();
    // An element without a class rule that took the base's black under a coloured parent.
    expect(rewrite(plain, [element('div', 'c1', -1), element('span', '', 0)])).toBeNull();
    // One class on two types whose base values differ, both under a parent with a third value.
    const th = 'div,span { text-align:start; }th { text-align:center; }';
    const mixed = [element('div', 'c1', -1), element('span', 'c2', 0), element('th', 'c2', 0)];
    expect(rewrite('.c1{text-align:right}.c2{width:1px}', mixed, th)).toBeNull();
  });
});
