import { describe, expect, it } from 'vitest';
import { RELAY_BATCH_SUBPROTOCOL } from '../../protocol/index.js';
import { SOCKET_OPEN, type BrowserSocket } from './browserSocket.js';
import { RelayLink } from './relayLink.js';

/** An open socket that negotiated batches and keeps what it was sent. */
function openSocket(): BrowserSocket & { sent: string[] } {
  const sent: string[] = [];
  return {
    sent,
    readyState: SOCKET_OPEN,
    protocol: RELAY_BATCH_SUBPROTOCOL,
    send: (data) => void sent.push(data),
    close: () => undefined,
    onopen: null,
    onmessage: null,
    onclose: null,
    onerror: null,
  };
}

describe('RelayLink frame queue (SPEC §9 batches)', () => {
  it('SPEC §9 frames of one turn share one message, written in the microtasks of that turn, before any later task', async () => {
    const socket = openSocket();
    const link = new RelayLink(socket, { kind: 'pair', code: 'ABCD-EFGH' });
    link.opened();
    let seenByNextTask: string[] | null = null;
    // Queued before the frames: a flush that waited for a task of its own would come after it.
    setTimeout(() => (seenByNextTask = [...socket.sent]), 0);
    let seenByLaterMicrotask: string[] | null = null;
    link.send('{"n":1}');
    // A microtask queued after the first frame runs after the flush it queued.
    queueMicrotask(() => (seenByLaterMicrotask = [...socket.sent]));
    link.send('{"n":2}');
    expect(socket.sent).toEqual([]);
    await new Promise((resolve) => setTimeout(resolve, 0));
    expect(seenByLaterMicrotask).toEqual(['[{"n":1},{"n":2}]']);
    expect(seenByNextTask).toEqual(['[{"n":1},{"n":2}]']);
  });

  it('SPEC §9 a lone frame goes as itself', async () => {
    const socket = openSocket();
    const link = new RelayLink(socket, { kind: 'pair', code: 'ABCD-EFGH' });
    link.opened();
    link.send('{"n":1}');
    await Promise.resolve();
    expect(socket.sent).toEqual(['{"n":1}']);
  });
});
