import { describe, expect, it } from 'vitest';
import { pruneDeadStyle, type StyleSurroundings, type StyledElement } from './deadStyle.js';

/** snapdom's base rules as it writes them: type selectors, defaults, nothing important. */
const BASE = 'div,span { background-image:none;outline-style:none;transform:none;color:rgb(0, 0, 0); }';

function around(elements: StyledElement[] = [], elsewhere = '', base = BASE): StyleSurroundings {
  return { elements, elsewhere, base };
}

function prune(css: string, surroundings = around()): string {
  return pruneDeadStyle(css, surroundings);
}

describe('SPEC §8 dead style in a layer raster', () => {
  it('drops declarations never painted in a static raster and keeps those that paint', () => {
    const css =
      '.c1{background-color:rgb(1, 2, 3);cursor:pointer;pointer-events:none;transition:opacity 0.2s;' +
      'transition-delay:1s;user-select:none;-webkit-user-select:none;touch-action:none;caret-color:red;' +
      'font-family:"Segoe UI", sans-serif;width:10px}';
    expect(prune(css)).toBe('.c1{background-color:rgb(1, 2, 3);font-family:"Segoe UI", sans-serif;width:10px}');
  });

  it('leaves out a rule whose every declaration goes, and keeps the others as written', () => {
    expect(prune('.c1{cursor:pointer;pointer-events:none}.c2{ color : red }')).toBe('.c2{ color : red }');
  });

  it('keeps custom properties, whose names and values a var() may read', () => {
    const css = '.c1{--cursor:pointer;--outline-color:red;cursor:var(--cursor)}';
    expect(prune(css)).toBe('.c1{--cursor:pointer;--outline-color:red}');
  });

  it('treats !important alike: a never-painted one goes, a painting one stays with its flag', () => {
    const css = '.c1{cursor:pointer !important;color:red!important;outline-color:red !important}';
    expect(prune(css)).toBe('.c1{color:red!important}');
  });

  it('drops outline colour, width and offset only while no outline style can apply', () => {
    const css = '.c1{outline-color:red;outline-width:3px;outline-offset:1px;color:red}';
    expect(prune(css)).toBe('.c1{color:red}');
    const styled = '.c1{outline-color:red;outline-style:solid}';
    expect(prune(styled)).toBe(styled);
    // On the element itself: its style attribute; snapdom's own `outline: none` there is no outline.
    const element = (style: string): StyledElement => ({ classes: ['panel', 'c1'], style });
    expect(prune(css, around([element('outline: 1px dotted')]))).toBe(css);
    expect(prune(css, around([element('outline: none')]))).toBe('.c1{color:red}');
    // Another rule of the capture may reach any element.
    const wide = '[data-x]::after{outline-style:solid}';
    expect(prune(wide + css)).toBe(wide + css);
  });

  it('keeps what a shorthand turns on: outline, background and text-decoration shorthands, a stroke width', () => {
    const outline = '.c1{outline:2px solid;outline-color:red}';
    expect(prune(outline)).toBe(outline);
    const background = '.c1{background:url(a.png) no-repeat;background-position-x:50%;background-size:4px}';
    expect(prune(background)).toBe(background);
    const decoration = '.c1{color:red;text-decoration:underline red;text-decoration-color:red}';
    expect(prune(decoration)).toBe(decoration);
    // The stroke width is inherited: one element's stroke keeps every stroke declaration.
    const stroke = '.c1{-webkit-text-stroke:0px red}.c2{-webkit-text-stroke:1px blue}';
    expect(prune(stroke)).toBe(stroke);
  });

  it('drops a zero text stroke everywhere when no stroke width anywhere is other than zero', () => {
    const css = '.c1{-webkit-text-stroke:0px rgb(1, 2, 3);-webkit-text-stroke-color:rgb(1, 2, 3);color:red}';
    expect(prune(css)).toBe('.c1{color:red}');
    expect(prune(css, around([{ classes: ['x'], style: '-webkit-text-stroke-width: 2px' }]))).toBe(css);
  });

  it('drops transform origin and background geometry only without a transform or a background image', () => {
    const css = '.c1{transform-origin:5px 5px;text-transform:uppercase;background-position-x:0%;background-size:auto}';
    expect(prune(css)).toBe('.c1{text-transform:uppercase}');
    const rotated = '.c1{rotate:45deg;transform-origin:5px 5px}';
    expect(prune(rotated)).toBe(rotated);
    const imaged = '.c1{background-image:linear-gradient(red, blue);background-position-x:0%}';
    expect(prune(imaged)).toBe(imaged);
    // An SVG transform attribute arrives as a declaration of the element's style.
    const svg = around([{ classes: ['c1'], style: 'transform:rotate(45 5 5)' }]);
    expect(prune('.c1{transform-origin:5px 5px}', svg)).toBe('.c1{transform-origin:5px 5px}');
    // Base rules reach every element too: a transform there keeps the origin.
    expect(prune('.c1{transform-origin:5px 5px}', around([], '', 'div { transform:scale(2); }'))).toBe(
      '.c1{transform-origin:5px 5px}',
    );
  });

  it("drops a text decoration colour equal to the rule's colour, unless something else may set either", () => {
    const css = '.c1{color:rgb(1, 2, 3);text-decoration-color:rgb(1,2,3);text-decoration-line:underline}';
    expect(prune(css)).toBe('.c1{color:rgb(1, 2, 3);text-decoration-line:underline}');
    const other = '.c1{color:red;text-decoration-color:blue}';
    expect(prune(other)).toBe(other);
    expect(prune(css, around([{ classes: ['c1'], style: 'color: blue' }]))).toBe(css);
    expect(prune(css, around([], 'p{color:blue}'))).toBe(css);
  });

  it('keeps a family some declaration inherits, since its value passes on to a child', () => {
    const css = '.c1{transform-origin:1px 2px}.c2{transform-origin:inherit;transform:rotate(1deg)}';
    expect(prune(css)).toBe(css);
    const all = '.c1{outline-color:red}.c2{all:inherit}';
    expect(prune(all)).toBe(all);
  });

  it('drops an animation timing only where no animation is named', () => {
    expect(prune('.c1{animation-duration:1s;animation-delay:2s;color:red}')).toBe('.c1{color:red}');
    const named = '.c1{animation-name:spin;animation-duration:1s}';
    expect(prune(named)).toBe(named);
  });

  it('returns text it cannot read unchanged', () => {
    const dead = '.c1{cursor:pointer}';
    for (const css of [
      `${dead}.c2{color:red`,
      `${dead}/* note */`,
      `${dead}@media print{.c3{color:red}}`,
      `${dead}.c2{content:"open}`,
      `${dead}.c2{color red}`,
      `${dead}.c2{color:red}}`,
      `${dead}.c2{.c3{color:red}}`,
    ]) {
      expect(prune(css)).toBe(css);
    }
    // Surroundings it cannot read, or an element under two class rules, leave it unchanged too.
    expect(prune(dead, around([{ classes: ['c1'], style: 'color: "red' }]))).toBe(dead);
    expect(prune(`${dead}.c2{color:red}`, around([{ classes: ['c1', 'c2'], style: '' }]))).toBe(
      `${dead}.c2{color:red}`,
    );
    expect(prune(dead, around([], 'p{content:"open}'))).toBe(dead);
  });

  it('counts base rules that are more than type selectors as reaching every element with any weight', () => {
    const css = '.c1{color:red;text-decoration-color:red}';
    expect(prune(css)).toBe('.c1{color:red}');
    expect(prune(css, around([], '', '.x { color:blue; }'))).toBe(css);
    expect(prune(css, around([], '', 'div { color:blue !important; }'))).toBe(css);
  });

  it('is idempotent on a rule shaped like the root layer of the demo terminal', () => {
    const css =
      '[data-snapdom-has-after]::after,[data-snapdom-has-before]::before{content:none!important;display:none!important}' +
      '.c1{-webkit-font-smoothing:antialiased;-webkit-text-stroke-color:rgb(124, 135, 154);' +
      '-webkit-text-stroke:0px rgb(124, 135, 154);background-position-x:0%;background-position-y:0%;' +
      'color:rgb(124, 135, 154);display:flex;font-size:11px;outline-color:rgb(124, 135, 154);' +
      'text-decoration-color:rgb(124, 135, 154);transform-origin:640px 12px;width:1280px}';
    const once = prune(css);
    expect(once).toBe(
      '[data-snapdom-has-after]::after,[data-snapdom-has-before]::before{content:none!important;display:none!important}' +
        '.c1{-webkit-font-smoothing:antialiased;color:rgb(124, 135, 154);display:flex;font-size:11px;width:1280px}',
    );
    expect(prune(once)).toBe(once);
  });
});
