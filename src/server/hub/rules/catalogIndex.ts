/**
 * Session vocabularies and the catalog resource (SPEC §3, §6). A session's
 * declared controls and channels are at most `catalogBytes` of JSON, checked
 * at attach. Each declaration is indexed once then (its size, and a digest of
 * its canonical JSON), so `tradescript://catalog/controls` merges identical
 * declarations across sessions and is built within `resultBytes` without
 * serializing anything again: a read never costs more than what it answers.
 */
import { createHash } from 'node:crypto';
import { canonicalJson, jsonByteLength, type CatalogDocument, type CatalogResource } from '../../../protocol/index.js';

type Declaration = CatalogDocument['controls'][number] | CatalogDocument['channels'][number];

/** One indexed declaration. */
export interface CatalogEntry {
  readonly kind: 'control' | 'channel';
  readonly value: Declaration;
  /** Digest of the canonical JSON: equal declarations have equal keys. */
  readonly key: string;
  /** UTF-8 bytes of its JSON. */
  readonly bytes: number;
}

/** A session's vocabulary with its index. */
export interface IndexedCatalog {
  readonly document: CatalogDocument;
  readonly entries: readonly CatalogEntry[];
  /** UTF-8 bytes of the whole document's JSON. */
  readonly bytes: number;
}

/** A session with no vocabulary. */
export const EMPTY_CATALOG: IndexedCatalog = { document: { controls: [], channels: [] }, entries: [], bytes: 0 };

/** Bytes kept for the resource's own keys (`truncated`, `total`, brackets). */
const RESOURCE_OVERHEAD_BYTES = 256;

function entry(kind: CatalogEntry['kind'], value: Declaration): CatalogEntry {
  const text = canonicalJson(value);
  return { kind, value, key: createHash('sha256').update(text).digest('base64'), bytes: jsonByteLength(value) };
}

/**
 * Indexes a declared vocabulary, or returns null when its JSON is over
 * `maxBytes` (nothing past the size is computed then).
 */
export function indexCatalog(document: CatalogDocument, maxBytes: number): IndexedCatalog | null {
  const bytes = jsonByteLength(document);
  if (bytes > maxBytes) return null;
  const entries = [
    ...document.controls.map((c) => entry('control', c)),
    ...document.channels.map((c) => entry('channel', c)),
  ];
  return { document, entries, bytes };
}

/**
 * The catalog resource: every distinct declaration of `catalogs`, in order,
 * while the document stays within `maxBytes`; the rest is counted in `total`.
 */
export function catalogResource(catalogs: Iterable<IndexedCatalog>, maxBytes: number): CatalogResource {
  const seen = new Set<string>();
  const out: CatalogResource = { controls: [], channels: [], truncated: false, total: { controls: 0, channels: 0 } };
  let used = RESOURCE_OVERHEAD_BYTES;
  for (const catalog of catalogs) {
    for (const e of catalog.entries) {
      if (seen.has(e.key)) continue;
      seen.add(e.key);
      const list = e.kind === 'control' ? 'controls' : 'channels';
      out.total[list] += 1;
      // One comma per entry; the rest of the union is counted but not listed.
      if (out.truncated || used + e.bytes + 1 > maxBytes) {
        out.truncated = true;
        continue;
      }
      used += e.bytes + 1;
      (out[list] as Declaration[]).push(e.value);
    }
  }
  return out;
}
