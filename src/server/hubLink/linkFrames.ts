/**
 * Parsing hub link frames (SPEC §9): size first, then JSON, then the schema.
 * A failure yields a reason code only, never the frame's content.
 */
import {
  FollowerLinkFrameSchema,
  HubLinkFrameSchema,
  type FollowerLinkFrame,
  type HubLinkFrame,
} from '../../protocol/wire/hubLink.js';
import { readFrame, type ReadFrame } from '../../protocol/index.js';
import { MAX_FRAME_BYTES } from '../relay/serverFrames.js';

/**
 * The largest link frame: a relay frame's worth of answer (a full result and a
 * snapshot image) and room for the link's own envelope around it.
 */
export const MAX_LINK_FRAME_BYTES = MAX_FRAME_BYTES + 64 * 1024;

/** Parses a frame a front sent to the hub (`readFrame`). */
export function parseFollowerFrame(text: string, maxBytes = MAX_LINK_FRAME_BYTES): ReadFrame<FollowerLinkFrame> {
  return readFrame(FollowerLinkFrameSchema, text, { maxBytes });
}

/** Parses a frame the hub sent to a front (`readFrame`). */
export function parseHubFrame(text: string, maxBytes = MAX_LINK_FRAME_BYTES): ReadFrame<HubLinkFrame> {
  return readFrame(HubLinkFrameSchema, text, { maxBytes });
}
