import fc from 'fast-check';
import { isDeepStrictEqual } from 'node:util';
import { describe, expect, it } from 'vitest';
import * as z from 'zod/mini';
import {
  CLOSE_CODES,
  DEFAULT_LIMITS,
  MAX_BATCH_CHARS,
  ResponseFrameSchema,
  ServerFrameSchema,
  makeError,
} from '../../protocol/index.js';
import { mutate, mutationArbitrary } from '../../testing/mutations.js';
import { MAX_INBOUND_FRAME_BYTES, encodeResponse, parseServerFrames, responseByteLimit } from './clientFrames.js';
import { requestFrame } from '../testing/scriptedRelay.js';

const request = requestFrame('r1', 's1', { kind: 'context', target: { scope: 'session' } });

describe('SPEC §9 inbound frames are checked before anything acts on them', () => {
  it('accepts a valid server frame', () => {
    expect(parseServerFrames('{"t":"ping","n":3}', false)).toEqual({ ok: true, frames: [{ t: 'ping', n: 3 }] });
  });

  it.each([
    ['binary data', new Uint8Array([1, 2, 3])],
    ['text that is not JSON', '{"t":'],
    ['an unknown frame type', '{"t":"hello"}'],
    ['an unknown field', '{"t":"ping","n":1,"extra":true}'],
  ])('refuses %s with 4400', (_name, data) => {
    expect(parseServerFrames(data, false)).toEqual({ ok: false, closeCode: CLOSE_CODES.malformed });
  });

  it('refuses a frame over the inbound limit with 4413, counting UTF-8 bytes', () => {
    expect(parseServerFrames('x'.repeat(MAX_INBOUND_FRAME_BYTES + 1), false)).toEqual({
      ok: false,
      closeCode: CLOSE_CODES.tooLarge,
    });
    // Fewer UTF-16 units than the limit, more UTF-8 bytes (three per "€").
    const euros = `"${'€'.repeat(Math.ceil(MAX_INBOUND_FRAME_BYTES / 3) + 1)}"`;
    expect(euros.length).toBeLessThan(MAX_INBOUND_FRAME_BYTES);
    expect(parseServerFrames(euros, false)).toEqual({ ok: false, closeCode: CLOSE_CODES.tooLarge });
  });
});

describe('SPEC §9 the page reads frames with a fast path (issue 15 item 1): it answers what zod alone answers', () => {
  const call = requestFrame('r2', 's1', {
    kind: 'call',
    call: {
      target: { scope: 'chart', chartId: 'c1' },
      controlId: 'chart.getVisibleRange',
      args: [{ from: 1, to: 2 }],
      expectedRevisions: { viewport: 3 },
      operationId: 'gen-1',
      callerOperationId: false,
    },
  });
  const frames: unknown[] = [call, request, { t: 'ping', n: 1 }, { t: 'cancel', id: 'r2' }, [call, request]];

  it('valid, mutated and hostile frames (and batches of them): accepted exactly when zod accepts, as zod parses them', () => {
    fc.assert(
      fc.property(fc.constantFrom(...frames), fc.array(mutationArbitrary, { maxLength: 3 }), (frame, plan) => {
        let text: string | undefined;
        try {
          text = JSON.stringify(mutate(frame, plan));
        } catch {
          return; // nesting no JSON text of ours can be written: 50,000 levels
        }
        if (text === undefined) return;
        const read = parseServerFrames(text, true);
        const value = JSON.parse(text) as unknown;
        const items = Array.isArray(value) ? value : [value];
        const parsed = items.map((item) => z.safeParse(ServerFrameSchema, item));
        const batchOk = !Array.isArray(value) || (value.length >= 2 && text.length <= MAX_BATCH_CHARS);
        const fits = Buffer.byteLength(text) <= MAX_INBOUND_FRAME_BYTES;
        const zodOk = fits && batchOk && parsed.every((p) => p.success);
        expect(read.ok).toBe(zodOk);
        // node's comparison: vitest's compares `constructor`, which a hostile frame may carry as its own key.
        if (read.ok)
          expect(
            isDeepStrictEqual(
              read.frames,
              parsed.map((p) => p.data),
            ),
          ).toBe(true);
      }),
      { numRuns: 1500 },
    );
  });
});

describe('SPEC §6 responses are bounded before they leave', () => {
  it('a response within the limit is sent as is', () => {
    const text = encodeResponse(request, 'paper', { ok: true, data: { a: 1 } });
    expect(JSON.parse(text)).toEqual({
      t: 'response',
      id: 'r1',
      environment: 'paper',
      outcome: { ok: true, data: { a: 1 } },
    });
  });

  it('a response over resultBytes plus overhead becomes limit_exceeded with limit and max', () => {
    const small = { ...request, limits: { ...request.limits, resultBytes: 100 } };
    const text = encodeResponse(small, null, {
      ok: true,
      data: 'y'.repeat(responseByteLimit(small.limits, 'context')),
    });
    const frame = ResponseFrameSchema.parse(JSON.parse(text));
    expect(frame.outcome).toMatchObject({
      ok: false,
      error: { code: 'limit_exceeded', details: { limit: 'resultBytes', max: 100 } },
    });
  });

  it('a snapshot response has room for its base64 image', () => {
    expect(responseByteLimit(request.limits, 'snapshot') - responseByteLimit(request.limits, 'context')).toBe(
      Math.ceil(DEFAULT_LIMITS.snapshotBytes / 3) * 4,
    );
  });

  it('an outcome that does not fit the frame schema becomes internal_error instead of a socket-closing frame', () => {
    const broken = { ok: false, error: { code: 'not_a_code', message: 'x' } } as unknown as Parameters<
      typeof encodeResponse
    >[2];
    const frame = ResponseFrameSchema.parse(JSON.parse(encodeResponse(request, 'paper', broken)));
    expect(frame.outcome).toMatchObject({ ok: false, error: { code: 'internal_error' } });
  });

  it('an error outcome passes unchanged', () => {
    const error = makeError('revision_conflict', 'Re-read context.', { details: { current: { viewport: 3 } } });
    const frame = JSON.parse(encodeResponse(request, 'live', { ok: false, error }));
    expect(frame.outcome.error).toEqual(error);
  });
});

describe('SPEC §6 §8 a 4 MB snapshot fits both ends of the relay', () => {
  it('the bridge sends a snapshot response with a full 4 MB image as base64, and the server’s frame parser accepts it', async () => {
    const { MAX_FRAME_BYTES, parseBrowserFrames } = await import('../../server/relay/serverFrames.js');
    const snapshot = requestFrame('r-snap', 's1', {
      kind: 'snapshot',
      target: { scope: 'widget', widgetId: 'w' },
      format: 'png',
    });
    const base64 = Buffer.alloc(DEFAULT_LIMITS.snapshotBytes, 7).toString('base64');
    const data = {
      mimeType: 'image/png',
      width: 8000,
      height: 393,
      byteLength: DEFAULT_LIMITS.snapshotBytes,
      scaled: true,
      target: { scope: 'widget', widgetId: 'w' },
      capturedAt: '2026-01-01T00:00:00.000Z',
    };
    const text = encodeResponse(snapshot, 'paper', { ok: true, data, image: { mimeType: 'image/png', base64 } });
    expect(text.length).toBeGreaterThan(base64.length);
    expect(text.length).toBeLessThanOrEqual(MAX_FRAME_BYTES);
    const parsed = parseBrowserFrames(text, MAX_FRAME_BYTES, true);
    const frame = parsed.ok ? parsed.frames[0] : undefined;
    expect(frame?.t === 'response' && frame.outcome.ok).toBe(true);
    expect(responseByteLimit(snapshot.limits, 'snapshot')).toBeLessThanOrEqual(MAX_FRAME_BYTES);
  });
});
