/**
 * Parsing front link frames (SPEC §9): size first, then JSON, then the schema.
 * A failure yields a reason code only, never the frame's content.
 */
import { z } from 'zod';
import {
  FrontLinkFrameSchema,
  HubLinkFrameSchema,
  type FrontLinkFrame,
  type HubLinkFrame,
} from '../../protocol/hubLink.js';
import { MAX_FRAME_BYTES, readFrameJson, type FrameRefusal } from '../relay/frames.js';

/**
 * The largest link frame: a relay frame's worth of answer (a full result and a
 * snapshot image) and room for the link's own envelope around it.
 */
export const MAX_LINK_FRAME_BYTES = MAX_FRAME_BYTES + 64 * 1024;

/** A parsed frame, or why it was refused. */
export type ParsedLinkFrame<F> = { ok: true; frame: F } | { ok: false; reason: FrameRefusal };

function parse<S extends z.core.$ZodType>(schema: S, text: string, maxBytes: number): ParsedLinkFrame<z.infer<S>> {
  const read = readFrameJson(text, maxBytes);
  if (!read.ok) return read;
  const parsed = z.safeParse(schema, read.value);
  return parsed.success ? { ok: true, frame: parsed.data } : { ok: false, reason: 'schema' };
}

/** Parses a frame a front sent to the hub. */
export function parseFrontFrame(text: string, maxBytes = MAX_LINK_FRAME_BYTES): ParsedLinkFrame<FrontLinkFrame> {
  return parse(FrontLinkFrameSchema, text, maxBytes);
}

/** Parses a frame the hub sent to a front. */
export function parseHubFrame(text: string, maxBytes = MAX_LINK_FRAME_BYTES): ParsedLinkFrame<HubLinkFrame> {
  return parse(HubLinkFrameSchema, text, maxBytes);
}
