/**
 * A server's JavaScript heap after a full garbage collection, read through the
 * Node inspector (started with `NODE_OPTIONS=--inspect=127.0.0.1:0`): what the
 * process still holds, which RSS cannot say (it keeps garbage not yet
 * collected, and pages V8 or malloc keep after a collection).
 */
import WebSocket from 'ws';

/** The `NODE_OPTIONS` that let {@link heapAfterGc} reach a server. */
export const INSPECT_NODE_OPTIONS = '--inspect=127.0.0.1:0';

/** The inspector's WebSocket URL in a server's stderr line `Debugger listening on ws://…`. */
export const INSPECTOR_LINE = /Debugger listening on (ws:\/\/\S+)/;

/** Used heap in MB after `HeapProfiler.collectGarbage`, through the inspector at `url`. */
export async function heapAfterGc(url: string): Promise<number> {
  const socket = new WebSocket(url);
  await new Promise<void>((resolve, reject) => {
    socket.once('open', () => resolve());
    socket.once('error', reject);
  });
  const waiting = new Map<number, (result: unknown) => void>();
  socket.on('message', (data: Buffer) => {
    const message = JSON.parse(data.toString('utf8')) as { id?: number; result?: unknown };
    if (message.id !== undefined) waiting.get(message.id)?.(message.result);
  });
  let nextId = 0;
  const send = (method: string): Promise<unknown> =>
    new Promise((resolve) => {
      nextId += 1;
      waiting.set(nextId, resolve);
      socket.send(JSON.stringify({ id: nextId, method }));
    });
  try {
    // Twice: what the first collection frees (weak references, finalizers) the second takes.
    await send('HeapProfiler.collectGarbage');
    await send('HeapProfiler.collectGarbage');
    const usage = (await send('Runtime.getHeapUsage')) as { usedSize: number };
    return usage.usedSize / 2 ** 20;
  } finally {
    socket.close();
  }
}
