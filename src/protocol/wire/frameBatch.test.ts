import { describe, expect, it } from 'vitest';
import {
  FrameQueue,
  MAX_BATCH_CHARS,
  MAX_BATCH_FRAMES,
  packFrames,
  readFrames,
  RELAY_BATCH_SUBPROTOCOL,
  RELAY_CONTEXT_SUBPROTOCOL,
} from './frameBatch.js';
import { PingFrameSchema, RELAY_SUBPROTOCOL, relaySubprotocols } from './relay.js';

const ping = (n: number) => JSON.stringify({ t: 'ping', n });
const pings = (count: number) => Array.from({ length: count }, (_, n) => ping(n));
const batch = (texts: string[]) => `[${texts.join(',')}]`;
const BOUNDS = { maxBytes: 1024 * 1024, maxDepth: 8, batch: true };
const read = (text: string, bounds = BOUNDS) => readFrames(PingFrameSchema, text, bounds);

describe('SPEC §9 relay batches: reading one message', () => {
  it('a lone frame reads as before, on either kind of socket', () => {
    expect(read(ping(1))).toEqual({ ok: true, frames: [{ t: 'ping', n: 1 }] });
    expect(read(ping(1), { ...BOUNDS, batch: false })).toEqual({ ok: true, frames: [{ t: 'ping', n: 1 }] });
  });

  it('2 and 64 frames read in order', () => {
    expect(read(batch(pings(2)))).toEqual({
      ok: true,
      frames: [
        { t: 'ping', n: 0 },
        { t: 'ping', n: 1 },
      ],
    });
    const all = read(batch(pings(MAX_BATCH_FRAMES)));
    expect(all.ok && all.frames.map((f) => f.n)).toEqual([...Array(MAX_BATCH_FRAMES).keys()]);
  });

  it.each([
    ['an empty array', '[]'],
    ['a one-frame array (a lone frame goes as itself)', batch(pings(1))],
    ['65 frames', batch(pings(MAX_BATCH_FRAMES + 1))],
    ['a nested array', `[${ping(1)},${batch(pings(2))}]`],
    ['one bad frame among good ones', `[${ping(1)},{"t":"ping","n":-1},${ping(3)}]`],
    ['a frame with a foreign field', `[${ping(1)},{"t":"ping","n":2,"x":1}]`],
  ])('refuses the whole message: %s', (_name, text) => {
    expect(read(text)).toEqual({ ok: false, reason: 'schema' });
  });

  it('refuses text that is not JSON', () => {
    expect(read(`[${ping(1)},`)).toEqual({ ok: false, reason: 'not-json' });
  });

  it('refuses a message over 32 K chars as too large, before parsing it', () => {
    const text = `[${ping(1)},${ping(2)}${' '.repeat(MAX_BATCH_CHARS)}]`;
    expect(read(text)).toEqual({ ok: false, reason: 'too-large' });
  });

  it('checks each frame’s depth as a lone frame’s', () => {
    const deep = `{"t":"ping","n":1,"x":${'['.repeat(20)}${']'.repeat(20)}}`;
    expect(read(`[${ping(1)},${deep}]`)).toEqual({ ok: false, reason: 'schema' });
  });

  it('refuses any array on a socket that did not negotiate batches', () => {
    expect(read(batch(pings(2)), { ...BOUNDS, batch: false })).toEqual({
      ok: false,
      reason: 'batch-not-negotiated',
    });
  });
});

describe('SPEC §9 relay batches: packing what one turn sent', () => {
  it('a lone frame goes as itself, several as one array, in order', () => {
    expect(packFrames([ping(1)])).toEqual([ping(1)]);
    expect(packFrames(pings(3))).toEqual([batch(pings(3))]);
    expect(packFrames([])).toEqual([]);
  });

  it('at most 64 frames per message; a last one left over goes as itself', () => {
    const messages = packFrames(pings(MAX_BATCH_FRAMES + 1));
    expect(messages).toEqual([batch(pings(MAX_BATCH_FRAMES)), ping(MAX_BATCH_FRAMES)]);
  });

  it('at most 32 K chars per message; a frame too long for any batch goes alone', () => {
    const long = JSON.stringify({ t: 'ping', n: 9, pad: 'x'.repeat(MAX_BATCH_CHARS) });
    const half = JSON.stringify({ t: 'ping', n: 5, pad: 'y'.repeat(MAX_BATCH_CHARS / 2) });
    const texts = [ping(1), ping(2), long, ping(3), half, half, ping(4)];
    const messages = packFrames(texts);
    expect(messages).toEqual([batch([ping(1), ping(2)]), long, batch([ping(3), half]), batch([half, ping(4)])]);
    for (const message of messages) if (message !== long) expect(message.length).toBeLessThanOrEqual(MAX_BATCH_CHARS);
    // Exactly 32 K chars with its brackets and commas still goes as one message; a char more does not.
    const padded = (pad: number) => JSON.stringify({ t: 'ping', n: 1, p: 'z'.repeat(pad) });
    const room = MAX_BATCH_CHARS - batch([ping(2), padded(0), ping(3)]).length;
    const fits = batch([ping(2), padded(room), ping(3)]);
    expect(fits.length).toBe(MAX_BATCH_CHARS);
    expect(packFrames([ping(2), padded(room), ping(3)])).toEqual([fits]);
    expect(packFrames([ping(2), padded(room + 1), ping(3)])).toEqual([batch([ping(2), padded(room + 1)]), ping(3)]);
  });
});

/** A queue whose turns end when the test says (`turns`), writing into `written`. */
function queued() {
  const written: string[] = [];
  const turns: Array<() => void> = [];
  const queue = new FrameQueue(
    (message) => written.push(message),
    (flush) => turns.push(flush),
  );
  return { written, turns, queue };
}

describe('SPEC §9 relay batches: the send queue', () => {
  it('writes nothing until the turn ends, then what was queued, packed', () => {
    const { written, turns, queue } = queued();
    queue.push(ping(1));
    queue.push(ping(2));
    expect(written).toEqual([]);
    expect(turns).toHaveLength(1);
    turns.shift()!();
    expect(written).toEqual([batch([ping(1), ping(2)])]);
    queue.push(ping(7));
    turns.shift()!();
    expect(written[1]).toBe(ping(7));
  });

  it('flush writes at once (before a close) and the turn’s end then finds nothing; clear forgets', () => {
    const { written, turns, queue } = queued();
    queue.push(ping(1));
    queue.flush();
    turns.shift()!();
    expect(written).toEqual([ping(1)]);
    queue.push(ping(2));
    queue.clear();
    turns.shift()!();
    expect(written).toEqual([ping(1)]);
  });
});

describe('SPEC §9 the browser offers call contexts first, then batches alone and the relay alone for older servers', () => {
  it('without and with a bearer token', () => {
    const relay = [RELAY_CONTEXT_SUBPROTOCOL, RELAY_BATCH_SUBPROTOCOL, RELAY_SUBPROTOCOL];
    expect(relaySubprotocols(null)).toEqual(relay);
    expect(relaySubprotocols('tok')).toEqual([...relay, 'bearer.tok']);
  });
});
