/**
 * The host-call link's two codecs. Everything the link carries is plain data
 * except a capture: structured clone (a MessagePort between the page and its
 * worker) transfers the SDK's ImageBitmap as it is; JSON (`chrome.runtime`
 * between the content script and the extension's service worker) carries it
 * as a lossless PNG in base64, encoded on the page and decoded in the service
 * worker.
 */
import { LinkCaptureSchema } from '../../protocol/wire/hostLink.js';
import { makeError } from '../../protocol/index.js';
import type { CaptureOutcome } from '../../sdk/types.js';

/** How one link carries captures. */
export interface LinkCodec {
  /** The page's capture as this link carries it, and what to transfer with it (the bitmap is consumed). */
  encodeCapture(outcome: CaptureOutcome): Promise<{ outcome: unknown; transfer: Transferable[] }>;
  /** A capture read back on the bridge's end; null when it is not one. */
  decodeCapture(outcome: Record<string, unknown>): Promise<CaptureOutcome | null>;
}

function isCaptureOutcome(value: Record<string, unknown>): value is CaptureOutcome {
  if (value['ok'] === false) return typeof value['error'] === 'object' && value['error'] !== null;
  return (
    value['ok'] === true &&
    typeof value['bitmap'] === 'object' &&
    value['bitmap'] !== null &&
    Number.isInteger(value['width']) &&
    Number.isInteger(value['height'])
  );
}

/** Structured clone: the bitmap is transferred, never copied. */
export const cloneCodec: LinkCodec = {
  encodeCapture: (outcome) => Promise.resolve({ outcome, transfer: outcome.ok ? [outcome.bitmap] : [] }),
  decodeCapture: (outcome) => Promise.resolve(isCaptureOutcome(outcome) ? outcome : null),
};

const NOT_ENCODED = 'The terminal could not encode this capture; re-read context and try again.';

/** What the JSON codec encodes and decodes PNGs with (the browser's canvas and createImageBitmap). */
export interface PngCodec {
  encode(bitmap: ImageBitmap): Promise<string>;
  decode(base64: string): Promise<ImageBitmap>;
}

/** JSON: a capture crosses as a base64 PNG. */
export function jsonCodec(png: PngCodec): LinkCodec {
  return {
    async encodeCapture(outcome) {
      if (!outcome.ok) return { outcome, transfer: [] };
      const { bitmap, width, height } = outcome;
      try {
        return { outcome: { ok: true, png: await png.encode(bitmap), width, height }, transfer: [] };
      } catch {
        return { outcome: { ok: false, error: makeError('control_failed', NOT_ENCODED) }, transfer: [] };
      } finally {
        bitmap.close();
      }
    },
    async decodeCapture(outcome) {
      const parsed = LinkCaptureSchema.safeParse(outcome);
      if (!parsed.success) return null;
      if (!parsed.data.ok) return parsed.data;
      const { width, height } = parsed.data;
      return { ok: true, bitmap: await png.decode(parsed.data.png), width, height };
    },
  };
}
