/**
 * Descriptors are derived once per declaration: listing and the catalog ask
 * for them on every request.
 */
import type { ControlDescriptor } from '../../protocol/index.js';
import { describeController, type ControllerDeclaration } from './declare.js';

const cache = new WeakMap<ControllerDeclaration, readonly ControlDescriptor[]>();

/** Every descriptor of a controller, derived once. */
export function describeCached(declaration: ControllerDeclaration): readonly ControlDescriptor[] {
  let descriptors = cache.get(declaration);
  if (!descriptors) {
    descriptors = describeController(declaration);
    cache.set(declaration, descriptors);
  }
  return descriptors;
}
