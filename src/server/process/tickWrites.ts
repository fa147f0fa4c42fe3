/**
 * MCP over stdio writes each message to stdout as it is made (SPEC §11).
 * With several calls in flight, answers that arrive together (one relay read
 * carrying several frames) are sent in the same tick: corking the stream for
 * the rest of that tick turns them into one writev instead of one write each.
 * A lone answer waits for nothing: the stream is uncorked once this tick's
 * microtasks have run.
 */
import type { Writable } from 'node:stream';

/** Makes the writes to `stream` within one tick go out together; returns `stream`. */
export function batchWritesPerTick<T extends Writable>(stream: T): T {
  let corked = false;
  const uncork = () => {
    corked = false;
    stream.uncork();
  };
  const write = stream.write.bind(stream) as (...args: unknown[]) => boolean;
  stream.write = ((...args: unknown[]) => {
    if (!corked) {
      corked = true;
      stream.cork();
      process.nextTick(uncork);
    }
    return write(...args);
  }) as T['write'];
  return stream;
}
