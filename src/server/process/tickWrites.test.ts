import { Writable } from 'node:stream';
import { describe, expect, test } from 'vitest';
import { batchWritesPerTick } from './tickWrites.js';

/** A stream that records each batch its writes reach the sink in. */
function recordingStream() {
  const batches: string[][] = [];
  const stream = new Writable({
    write(chunk: Buffer, _encoding, done) {
      batches.push([chunk.toString()]);
      done();
    },
    writev(chunks, done) {
      batches.push(chunks.map(({ chunk }) => String(chunk)));
      done();
    },
  });
  return { stream, batches };
}

describe('batchWritesPerTick (SPEC §11 stdio)', () => {
  test('answers written in one tick reach stdout as one batch, in order', async () => {
    const { stream, batches } = recordingStream();
    batchWritesPerTick(stream);
    await Promise.resolve().then(() => {
      stream.write('a\n');
      stream.write('b\n');
    });
    stream.write('c\n');
    await new Promise((resolve) => setImmediate(resolve));
    expect(batches).toEqual([['a\n', 'b\n', 'c\n']]);
  });

  test('a lone answer is not held past its tick', async () => {
    const { stream, batches } = recordingStream();
    batchWritesPerTick(stream);
    stream.write('alone\n');
    expect(batches).toEqual([]);
    await new Promise((resolve) => process.nextTick(resolve));
    expect(batches).toEqual([['alone\n']]);
    stream.write('next\n');
    await new Promise((resolve) => setImmediate(resolve));
    expect(batches).toEqual([['alone\n'], ['next\n']]);
  });
});
