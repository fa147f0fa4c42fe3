/**
 * The bridge's side of the host-call link's scopes (`hostLink.ts` in
 * src/protocol): which
 * scope each attachment's calls use, by key. A scope that changed (the server
 * sent other limits) gets a new key; the old one is dropped. At most
 * {@link MAX_CALL_SCOPES} are kept, so the page's table stays small too.
 */
import type { HostLinkScope as CallScope } from '../../protocol/wire/hostLink.js';

/** Scopes kept at once; the oldest goes first. */
export const MAX_CALL_SCOPES = 32;

/** What the table tells the port. */
export interface ScopeSink {
  define(key: number, scope: CallScope): void;
  drop(key: number): void;
}

/** Deep equality of plain JSON values (what a relay frame parses into). */
export function sameJson(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  const left = a as Record<string, unknown>;
  const right = b as Record<string, unknown>;
  const keys = Object.keys(left);
  if (keys.length !== Object.keys(right).length) return false;
  return keys.every((key) => Object.hasOwn(right, key) && sameJson(left[key], right[key]));
}

/** Scope keys by attachment. */
export class CallScopes {
  private readonly byAttachment = new Map<string, { key: number; scope: CallScope }>();
  private nextKey = 0;

  constructor(private readonly sink: ScopeSink) {}

  /** The key of `scope`, defining it on the page first when it is new or changed. */
  keyOf(scope: CallScope): number {
    const id = scope.attachment.attachmentId;
    const known = this.byAttachment.get(id);
    if (known && sameJson(known.scope, scope)) return known.key;
    if (known) this.forget(id);
    if (this.byAttachment.size >= MAX_CALL_SCOPES) {
      const oldest = this.byAttachment.keys().next();
      if (!oldest.done) this.forget(oldest.value);
    }
    const key = ++this.nextKey;
    this.byAttachment.set(id, { key, scope });
    this.sink.define(key, scope);
    return key;
  }

  /** The attachment ended (or its scope changed): its key is dropped on the page. */
  forget(attachmentId: string): void {
    const known = this.byAttachment.get(attachmentId);
    if (!known) return;
    this.byAttachment.delete(attachmentId);
    this.sink.drop(known.key);
  }

  /** How many scopes are defined. */
  get size(): number {
    return this.byAttachment.size;
  }
}
