/**
 * Previews: the broker remembers each preview's complete placement arguments
 * and accepts a placement only when it carries them unchanged, before the
 * preview expires. A material change needs a new preview.
 */
import { isoAt } from './clock.js';
import { rejected } from './errors.js';

/** How long a preview may be placed. */
export const PREVIEW_TTL_MS = 120_000;

/** Which workflow a preview belongs to. */
export type PreviewKind = 'new' | 'modify';

interface PreviewRecord {
  readonly kind: PreviewKind;
  readonly canonical: string;
  readonly expiresAt: number;
}

/** Sorted-key JSON, so key order never decides equality. */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(',')}}`;
  }
  return JSON.stringify(value);
}

/** Every open preview. */
export class PreviewStore {
  private readonly previews = new Map<string, PreviewRecord>();
  private next = 1;

  /** Records a preview and returns its id, expiry and placement arguments. */
  create<A extends object>(
    kind: PreviewKind,
    args: A,
    now: number,
  ): { previewId: string; expiresAt: string; placementArguments: A & { previewId: string } } {
    const previewId = `PV-${this.next++}`;
    const placementArguments = { previewId, ...args };
    const expiresAt = now + PREVIEW_TTL_MS;
    this.previews.set(previewId, { kind, canonical: canonicalJson(placementArguments), expiresAt });
    this.prune(now);
    return { previewId, expiresAt: isoAt(expiresAt), placementArguments };
  }

  /** Throws the broker's rejection unless `placement` is this preview's arguments, unchanged and in time. */
  check(kind: PreviewKind, placement: { previewId: string }, now: number): void {
    const preview = this.previews.get(placement.previewId);
    if (!preview || preview.kind !== kind) {
      throw rejected('PREVIEW_NOT_FOUND', 'No such preview; preview the order first and place its placementArguments.');
    }
    if (now >= preview.expiresAt) {
      throw rejected('PREVIEW_EXPIRED', 'The preview expired; preview again and review the new estimate.');
    }
    if (canonicalJson(placement) !== preview.canonical) {
      throw rejected(
        'PREVIEW_MISMATCH',
        'The placement differs from its preview; a material change needs a new preview. Pass placementArguments unchanged.',
      );
    }
  }

  /** The preview was placed: it cannot be placed again. */
  consume(previewId: string): void {
    this.previews.delete(previewId);
  }

  private prune(now: number): void {
    for (const [id, preview] of this.previews) if (now >= preview.expiresAt + PREVIEW_TTL_MS) this.previews.delete(id);
  }
}
