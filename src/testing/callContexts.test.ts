/**
 * Call contexts (SPEC §9, issue 15) against the full request frame they
 * replace: over generated valid, mutated and hostile request frames, the page
 * accepts a context and the request naming it exactly when it accepts the full
 * frame, and then acts on the same request; the server's {@link SentContexts}
 * sends what the page needs and nothing it already holds; a request naming a
 * key the page does not hold is refused, never guessed.
 */
import fc from 'fast-check';
import { isDeepStrictEqual } from 'node:util';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  CALL_CONTEXTS_KEPT,
  CallContextWindow,
  DEFAULT_LIMITS,
  relayLimitsOf,
  RequestFrameSchema,
  contextOf,
  requestWithContext,
  type RequestFrame,
  type ServerFrame,
} from '../protocol/index.js';
import { MAX_INBOUND_FRAME_BYTES, parseServerFrames } from '../bridge/relay/clientFrames.js';
import { SentContexts } from '../server/relay/sentContexts.js';
import { mutate, mutationArbitrary, setOwn } from './mutations.js';
import { arbitraryFor, type JsonSchema } from './schemaArbitrary.js';

const REQUEST_SCHEMA = z.toJSONSchema(RequestFrameSchema, { io: 'input' }) as JsonSchema;
const CONTEXT_FIELDS = new Set(['attachment', 'adapter', 'limits']);

/**
 * The context and request frames that stand for one full request frame
 * (whatever it holds: valid, mutated or hostile), under `key`, without
 * checking anything: the mapping the page's two checks must agree with.
 */
function split(full: unknown, key: number): [unknown, unknown] | null {
  if (full === null || typeof full !== 'object' || Array.isArray(full)) return null;
  const own = full as Record<string, unknown>;
  // A full frame's own `context` or `key` field would collide with the split's; its mapping is not the page's.
  if (Object.hasOwn(own, 'context') || Object.hasOwn(own, 'key')) return null;
  const context: Record<string, unknown> = { t: 'context', key };
  const ref: Record<string, unknown> = { context: key };
  for (const [name, value] of Object.entries(own)) {
    if (name === 't') setOwn(ref, 't', value === 'request' ? 'request.ref' : value);
    else setOwn(CONTEXT_FIELDS.has(name) ? context : ref, name, value);
  }
  return [context, ref];
}

/** The page's reading of one message of one frame: the frame, or null when refused. */
function read(text: string): ServerFrame | null {
  const parsed = parseServerFrames(text, true);
  return parsed.ok && parsed.frames.length === 1 ? parsed.frames[0]! : null;
}

/** The page's end: what it acts on for a context frame and a request frame, as the relay client does. */
function pageActsOn(window: CallContextWindow, texts: string[]): RequestFrame | 'refused' | 'unknown-context' {
  let request: RequestFrame | null = null;
  for (const text of texts) {
    const frame = read(text);
    if (frame === null) return 'refused';
    if (frame.t === 'context') {
      if (!window.hold(frame.key, contextOf(frame))) return 'refused';
    } else if (frame.t === 'request.ref') {
      const context = window.get(frame.context);
      if (!context) return 'unknown-context';
      request = requestWithContext(frame, context);
    } else return 'refused';
  }
  return request ?? 'refused';
}

/** Request frames valid as a whole (the schema arbitrary does not model exclusive minimums or this nullable array). */
const LIMITS = relayLimitsOf(DEFAULT_LIMITS);
const validRequest = arbitraryFor(REQUEST_SCHEMA, {
  fields: {
    limits: fc.record(Object.fromEntries(Object.entries(LIMITS).map(([k, v]) => [k, fc.constantFrom(v, 1, v + 1)]))),
    allowControls: fc.option(fc.array(fc.constantFrom('a.read', 'b.*', 'c'), { maxLength: 3 }), { nil: null }),
    deadlineMs: fc.constantFrom(1, 30_000),
  },
}) as fc.Arbitrary<RequestFrame>;

/** Three contexts one sequence's requests share (so contexts repeat and change), each request's op, and its mutations. */
const sequence = fc.tuple(
  fc.array(validRequest, { minLength: 3, maxLength: 3 }),
  fc.array(
    fc.record({
      frame: validRequest,
      uses: fc.nat({ max: 2 }),
      plan: fc.oneof(
        { weight: 2, arbitrary: fc.constant([]) },
        { weight: 3, arbitrary: fc.array(mutationArbitrary, { minLength: 1, maxLength: 3 }) },
      ),
    }),
    { minLength: 1, maxLength: 8 },
  ),
);

describe('SPEC §9 a request naming a call context is read as its full request frame', () => {
  it('valid, mutated and hostile frames (3,000 sequences): accepted exactly when the full frame is, as the same request; the server sends each context once', () => {
    const seen = { accepted: 0, refused: 0, contextsSent: 0, refsSent: 0, oversizedWhole: 0 };
    fc.assert(
      fc.property(sequence, ([contexts, steps]) => {
        const server = new SentContexts();
        const window = new CallContextWindow();
        for (const step of steps) {
          const owner = contexts[step.uses]!;
          const full = mutate({ ...step.frame, ...contextOf(owner) }, step.plan);
          let text: string | undefined;
          try {
            text = JSON.stringify(full);
          } catch {
            continue; // nesting no JSON text of ours can be written: 50,000 levels
          }
          if (text === undefined) continue;
          const old = read(text);
          const wholeOk = old !== null && old.t === 'request';
          if (wholeOk) {
            // What the server sends for it (a valid request is all it ever sends), against the mapping.
            const sent = server.frames(old);
            const ref = sent[sent.length - 1] as Extract<ServerFrame, { t: 'request.ref' }>;
            expect(sent.length === 2 ? sent[0] : undefined).toEqual(
              sent.length === 2 ? split(old, ref.context)![0] : undefined,
            );
            expect(ref).toEqual(split(old, ref.context)![1]);
            seen.contextsSent += sent.length - 1;
            seen.refsSent += 1;
            const acted = pageActsOn(
              window,
              sent.map((f) => JSON.stringify(f)),
            );
            expect(isDeepStrictEqual(acted, old)).toBe(true);
            seen.accepted += 1;
            continue;
          }
          // Refused whole: its context and request, on a socket of their own, are refused too.
          const parts = split(full, 0);
          if (parts === null) continue;
          const texts = parts.map((p) => JSON.stringify(p));
          const acted = pageActsOn(new CallContextWindow(), texts);
          const partsFit = texts.every((t) => Buffer.byteLength(t) <= MAX_INBOUND_FRAME_BYTES);
          if (acted !== 'refused' && Buffer.byteLength(text) > MAX_INBOUND_FRAME_BYTES && partsFit) {
            // The one difference: the inbound size bound applies to each frame, and the whole was over it.
            seen.oversizedWhole += 1;
            continue;
          }
          expect(acted).toBe('refused');
          seen.refused += 1;
        }
      }),
      { numRuns: 3000 },
    );
    process.stderr.write(`call contexts: ${JSON.stringify(seen)}\n`);
    expect(seen.accepted).toBeGreaterThan(1000);
    expect(seen.refused).toBeGreaterThan(1000);
    // Contexts repeat: far fewer sent than requests.
    expect(seen.contextsSent).toBeLessThan(seen.refsSent);
    // 3,000 sequences with huge and deep mutations: about 15 s alone, more on a loaded machine.
  }, 120_000);

  it('a request naming a key never sent, or one dropped from the window, is refused, never guessed', () => {
    const window = new CallContextWindow();
    const server = new SentContexts();
    const base: RequestFrame = {
      t: 'request',
      id: 'r1',
      sessionId: 's1',
      attachment: { attachmentId: 'a0', namespace: 'n', clientName: 'c' },
      adapter: { maxAccess: 'write', allowControls: null },
      limits: relayLimitsOf(DEFAULT_LIMITS),
      deadlineMs: 1000,
      op: { kind: 'context', target: { scope: 'session' } },
    };
    const first = server.frames(base).map((f) => JSON.stringify(f));
    expect(pageActsOn(window, first)).toEqual(base);
    const ref = JSON.parse(first[1]!) as Record<string, unknown>;
    expect(pageActsOn(window, [JSON.stringify({ ...ref, context: 1 })])).toBe('unknown-context');
    // 64 more attachments push key 0 out of both windows: the server sends it again, under a new key.
    for (let i = 1; i <= CALL_CONTEXTS_KEPT; i++) {
      const other = { ...base, attachment: { ...base.attachment, attachmentId: `a${i}` } };
      expect(
        pageActsOn(
          window,
          server.frames(other).map((f) => JSON.stringify(f)),
        ),
      ).toEqual(other);
    }
    expect(pageActsOn(window, [JSON.stringify(ref)])).toBe('unknown-context');
    const again = server.frames(base);
    expect(again.map((f) => f.t)).toEqual(['context', 'request.ref']);
    expect(
      pageActsOn(
        window,
        again.map((f) => JSON.stringify(f)),
      ),
    ).toEqual(base);
  });
});
