/**
 * The computed-style questions a layered capture asks (SPEC §8): may an
 * element's children be drawn as layers of their own, in which order do
 * overlapping siblings paint, what does an element clip its descendants to,
 * and can a canvas be drawn from its pixels.
 */
import type { Box } from './layerSurvey.js';

/** A clip a layer is drawn under: a padding box with its inner corner radii. */
export interface ClipBox extends Box {
  /** Top-left, top-right, bottom-right, bottom-left radii (CSS px, circular). */
  radii: [number, number, number, number];
}

const px = (value: string): number => parseFloat(value) || 0;

/**
 * True when an element applies an effect to its descendants as one group
 * (opacity, transform, filter, masks, blending): its children then cannot be
 * painted separately and composited without that effect.
 */
export function groupsDescendants(style: CSSStyleDeclaration): boolean {
  return (
    px(style.opacity || '1') < 1 ||
    (style.transform !== 'none' && style.transform !== '') ||
    (style.filter !== 'none' && style.filter !== '') ||
    (style.clipPath !== 'none' && style.clipPath !== '') ||
    (style.maskImage !== 'none' && style.maskImage !== '') ||
    (style.mixBlendMode !== 'normal' && style.mixBlendMode !== '') ||
    (style.backdropFilter !== 'none' && style.backdropFilter !== '') ||
    (style.perspective !== 'none' && style.perspective !== '')
  );
}

/** True when an element clips what overflows its padding box. */
export function clipsOverflow(style: CSSStyleDeclaration): boolean {
  return style.overflowX !== 'visible' || style.overflowY !== 'visible' || /paint|strict|content/.test(style.contain);
}

/**
 * A sort key for siblings in paint order (CSS 2.1 Appendix E, simplified):
 * negative z-indexes, then in-flow boxes, then positioned boxes at z-index
 * auto/0, then positive z-indexes; ties keep tree order.
 */
export function paintKey(style: CSSStyleDeclaration): number {
  if (style.position === 'static') return 0;
  const z = parseInt(style.zIndex, 10);
  if (!Number.isFinite(z) || z === 0) return 0.5;
  return z;
}

/** The padding box of an element at `rect`, with its inner corner radii. */
export function clipBoxOf(rect: DOMRect, style: CSSStyleDeclaration): ClipBox {
  const top = px(style.borderTopWidth);
  const right = px(style.borderRightWidth);
  const bottom = px(style.borderBottomWidth);
  const left = px(style.borderLeftWidth);
  const inner = (radius: string, a: number, b: number): number => Math.max(0, px(radius) - Math.max(a, b));
  return {
    left: rect.left + left,
    top: rect.top + top,
    right: rect.right - right,
    bottom: rect.bottom - bottom,
    radii: [
      inner(style.borderTopLeftRadius, top, left),
      inner(style.borderTopRightRadius, top, right),
      inner(style.borderBottomRightRadius, bottom, right),
      inner(style.borderBottomLeftRadius, bottom, left),
    ],
  };
}

/**
 * The content box a canvas's pixels fill, or null when they cannot simply be
 * drawn there (hidden, transformed, translucent, or not stretched to fill).
 */
export function canvasContentBox(rect: DOMRect, style: CSSStyleDeclaration): Box | null {
  if (style.visibility !== 'visible' || groupsDescendants(style) || style.objectFit !== 'fill') return null;
  const box = {
    left: rect.left + px(style.borderLeftWidth) + px(style.paddingLeft),
    top: rect.top + px(style.borderTopWidth) + px(style.paddingTop),
    right: rect.right - px(style.borderRightWidth) - px(style.paddingRight),
    bottom: rect.bottom - px(style.borderBottomWidth) - px(style.paddingBottom),
  };
  return box.right > box.left && box.bottom > box.top ? box : null;
}
