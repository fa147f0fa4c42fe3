/**
 * Line-by-line capture of a child's output stream, with bounded waits for a line.
 */
import type { Readable } from 'node:stream';

/** What a test can read from a captured stream. */
export interface LineLog {
  /** Everything captured so far, as received. */
  text(): string;
  /** The complete lines captured so far. */
  lines(): string[];
  /**
   * Resolves with the first line (already captured or still to come) that
   * matches; rejects after `timeoutMs` or when the stream ends without one.
   */
  waitFor(match: RegExp | string | ((line: string) => boolean), timeoutMs: number): Promise<string>;
  /** Resolves when the stream has ended. */
  readonly ended: Promise<void>;
}

/** Starts capturing `stream` (decoded as UTF-8). */
export function captureLines(stream: Readable): LineLog {
  let text = '';
  let partial = '';
  const lines: string[] = [];
  const waiters = new Set<{ test: (line: string) => boolean; resolve: (line: string) => void; onEnd: () => void }>();
  let done = false;
  let endResolve: () => void = () => {};
  const ended = new Promise<void>((resolve) => (endResolve = resolve));

  const push = (line: string): void => {
    lines.push(line);
    for (const waiter of waiters) if (waiter.test(line)) waiter.resolve(line);
  };
  stream.setEncoding('utf8');
  stream.on('data', (chunk: string) => {
    text += chunk;
    const parts = (partial + chunk).split('\n');
    partial = parts.pop() ?? '';
    for (const part of parts) push(part.replace(/\r$/, ''));
  });
  const end = (): void => {
    if (done) return;
    done = true;
    if (partial) push(partial);
    partial = '';
    for (const waiter of waiters) waiter.onEnd();
    endResolve();
  };
  stream.on('end', end);
  stream.on('close', end);
  stream.on('error', end);

  const waitFor: LineLog['waitFor'] = (match, timeoutMs) => {
    const test =
      typeof match === 'function'
        ? match
        : typeof match === 'string'
          ? (line: string) => line.includes(match)
          : (line: string) => match.test(line);
    const found = lines.find(test);
    if (found !== undefined) return Promise.resolve(found);
    return new Promise<string>((resolve, reject) => {
      const waiter = {
        test,
        resolve: (line: string) => finish(() => resolve(line)),
        onEnd: () => finish(() => reject(new Error(`stream ended before a line matching ${String(match)}`))),
      };
      const timer = setTimeout(
        () => finish(() => reject(new Error(`no line matching ${String(match)} within ${timeoutMs} ms`))),
        timeoutMs,
      );
      const finish = (settle: () => void): void => {
        clearTimeout(timer);
        waiters.delete(waiter);
        settle();
      };
      if (done) waiter.onEnd();
      else waiters.add(waiter);
    });
  };

  return { text: () => text, lines: () => [...lines], waitFor, ended };
}
