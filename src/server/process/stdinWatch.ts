/**
 * Looks at the first messages on stdin before the process takes a role (SPEC
 * §2, §13). A 2026-07-28 client of the SDK (version negotiation `auto`)
 * first spawns a short-lived sibling of its server to send `server/discover`,
 * then ends that sibling's stdin and kills it. Such a probe must leave the
 * hub, the relay and the paired tabs alone, so a process whose stdin opens
 * with `server/discover` answers it (no hub needed) and takes its role only
 * when a second message follows; if stdin ends first, it never took one.
 *
 * Every byte read is passed on unchanged to the stream MCP reads.
 */
import { Readable } from 'node:stream';

/** The probe's method. */
export const DISCOVER = 'server/discover';

/** What stdin did first. */
export type FirstMessage = { kind: 'method'; method: string } | { kind: 'ended' } | { kind: 'silent' };

/** What stdin did after a `server/discover`. */
export type AfterDiscover = 'more' | 'ended' | 'timeout';

/** A watched stdin. */
export interface StdinWatch {
  /** What MCP reads: everything stdin carries, in order. */
  readonly stream: Readable;
  /** The first message's method, stdin's end, or silence for `waitMs`. */
  first(waitMs: number): Promise<FirstMessage>;
  /** Whether a message other than `server/discover` arrived, stdin ended, or `waitMs` passed. */
  afterDiscover(waitMs: number): Promise<AfterDiscover>;
}

const MAX_SCANNED = 64 * 1024;

/** Starts passing `stdin` through, noting the methods of its first lines. */
export function watchStdin(stdin: Readable): StdinWatch {
  // Chunks are pushed as they come (kept until MCP reads them): a pass-through
  // stream ran every message of the session through a write half as well.
  const stream = new Readable({ read: () => undefined });
  const methods: string[] = [];
  let ended = false;
  let scanning = true;
  let pending = '';
  const waiters = new Set<() => void>();
  const wake = () => waiters.forEach((w) => w());
  const note = (line: string) => {
    let method = '?';
    try {
      const message = JSON.parse(line) as { method?: unknown };
      if (typeof message.method === 'string') method = message.method;
    } catch {
      // Not JSON: MCP will answer it; for us it is "something other than a probe".
    }
    methods.push(method);
    if (method !== DISCOVER) scanning = false;
  };
  stdin.on('data', (chunk: Buffer) => {
    stream.push(chunk);
    if (!scanning) return;
    pending += chunk.toString('utf8');
    let newline = pending.indexOf('\n');
    while (newline >= 0 && scanning) {
      const line = pending.slice(0, newline).trim();
      pending = pending.slice(newline + 1);
      if (line !== '') note(line);
      newline = pending.indexOf('\n');
    }
    if (!scanning || pending.length > MAX_SCANNED) {
      scanning = false;
      pending = '';
    }
    wake();
  });
  stdin.once('end', () => {
    ended = true;
    stream.push(null);
    wake();
  });
  const until = <T>(waitMs: number, decide: () => T | null, timeout: T): Promise<T> =>
    new Promise((resolve) => {
      const check = () => {
        const verdict = decide();
        if (verdict === null) return;
        clearTimeout(timer);
        waiters.delete(check);
        resolve(verdict);
      };
      const timer = setTimeout(() => {
        waiters.delete(check);
        resolve(decide() ?? timeout);
      }, waitMs);
      waiters.add(check);
      check();
    });
  return {
    stream,
    first: (waitMs) =>
      until<FirstMessage>(
        waitMs,
        () => {
          const [method] = methods;
          if (method !== undefined) return { kind: 'method', method };
          if (!scanning) return { kind: 'method', method: '?' };
          return ended ? { kind: 'ended' } : null;
        },
        { kind: 'silent' },
      ),
    afterDiscover: (waitMs) =>
      until<AfterDiscover>(
        waitMs,
        () => {
          if (methods.some((m) => m !== DISCOVER) || (!scanning && !ended)) return 'more';
          return ended ? 'ended' : null;
        },
        'timeout',
      ),
  };
}
