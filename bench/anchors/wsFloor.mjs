/**
 * The FLOOR (SPEC §12): a raw WebSocket echo between this Node process and a
 * Chromium page of the same browser. A tiny page from a loopback HTTP server
 * opens a ws to an echo server in this process and sends every message back;
 * Node times send → receive.
 */
import { createServer } from 'node:http';
import { WebSocketServer } from 'ws';

const PAGE = `<!doctype html><meta charset="utf-8"><title>ws floor</title><script>
const ws = new WebSocket('ws://' + location.host + '/echo');
ws.onmessage = (event) => ws.send(event.data);
</script>`;

/**
 * The same echo with the socket in a dedicated Worker and every message making
 * a round trip worker → main thread → worker before it goes back: the shape of
 * the bridge (socket in the worker, controls on the main thread), without any of
 * its work. Informational: not a SPEC §12 anchor.
 */
const WORKER_PAGE = `<!doctype html><meta charset="utf-8"><title>ws floor via worker</title><script>
const source = "const ws = new WebSocket(" + JSON.stringify('ws://' + location.host + '/echo') + ");" +
  "ws.onmessage = (event) => postMessage(event.data);" +
  "onmessage = (event) => ws.send(event.data);";
const worker = new Worker(URL.createObjectURL(new Blob([source], { type: 'text/javascript' })));
worker.onmessage = (event) => worker.postMessage(event.data);
</script>`;

/** About the size of a relay call frame, so the floor moves comparable bytes. */
const PAYLOAD = JSON.stringify({ kind: 'call', body: 'x'.repeat(360) });

/**
 * @param {{ newPage: Function }} h the harness
 * @param {import('playwright-core').Browser} browser
 * @param {{ viaWorker?: boolean }} [opts]
 */
export async function openWsFloor(h, browser, { viaWorker = false } = {}) {
  const http = createServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store' });
    res.end(viaWorker ? WORKER_PAGE : PAGE);
  });
  const wss = new WebSocketServer({ server: http, path: '/echo' });
  await new Promise((resolve) => http.listen(0, '127.0.0.1', resolve));
  const port = /** @type {import('node:net').AddressInfo} */ (http.address()).port;
  const connected = new Promise((resolve, reject) => {
    wss.once('connection', resolve);
    setTimeout(() => reject(new Error('the floor page did not connect within 15 s')), 15_000).unref();
  });
  const tab = await h.newPage(browser);
  await tab.page.goto(`http://127.0.0.1:${port}/`);
  /** @type {import('ws').WebSocket} */
  const socket = await connected;

  /** @type {Map<string, () => void>} */
  const waiting = new Map();
  socket.on('message', (data) => {
    const text = data.toString();
    const id = text.slice(0, text.indexOf('|'));
    const resolve = waiting.get(id);
    waiting.delete(id);
    resolve?.();
  });
  let nextId = 0;

  return {
    /** One echo round trip. */
    echo() {
      const id = String(nextId++);
      return new Promise((resolve) => {
        waiting.set(id, resolve);
        socket.send(`${id}|${PAYLOAD}`);
      });
    },
    async close() {
      socket.close();
      await tab.close();
      wss.close();
      await new Promise((resolve) => http.close(resolve));
    },
  };
}
