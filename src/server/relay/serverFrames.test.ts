/**
 * A browser frame keeps the shape measured when it was read (issue 15 item 1),
 * on the frame itself: no serializer sees it and no copy carries it, so a
 * frame built or copied anywhere else is measured again.
 */
import { describe, expect, it } from 'vitest';
import { measureJsonShape } from '../../protocol/index.js';
import { browserFrameShape, MAX_FRAME_BYTES, MAX_FRAME_DEPTH, parseBrowserFrames } from './serverFrames.js';

const RESPONSE = {
  t: 'response',
  id: 'r1',
  environment: 'paper',
  outcome: { ok: true, data: { deep: { deeper: ['a long string', 2] } } },
};

describe('issue 15 browserFrameShape', () => {
  it('SPEC §6 gives the shape measured on reading, and nothing for a copy or a frame not read here', () => {
    const parsed = parseBrowserFrames(JSON.stringify(RESPONSE), MAX_FRAME_BYTES, false);
    if (!parsed.ok) throw new Error('the response frame was refused');
    const [frame] = parsed.frames;
    const expected = measureJsonShape(JSON.parse(JSON.stringify(RESPONSE)), {
      jsonDepth: MAX_FRAME_DEPTH,
      stringLength: MAX_FRAME_BYTES,
    });
    expect(browserFrameShape(frame!)).toEqual(expected);
    expect(JSON.stringify(frame)).toBe(JSON.stringify(RESPONSE));
    expect(browserFrameShape({ ...frame! })).toBeUndefined();
    expect(browserFrameShape(JSON.parse(JSON.stringify(RESPONSE)))).toBeUndefined();
  });
});
