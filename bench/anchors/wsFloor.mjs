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
 * Serves the echo page (or, with `viaWorker`, its worker form) and its socket
 * on loopback, in whatever process calls it: the floor below, and the bare
 * composite of `bench/fixtures/sdkServer.mjs --echo` (an SDK server whose tool
 * forwards each call over this socket). Open `pageUrl` in a tab; `echo()`
 * waits for the page to connect, then sends one message and resolves when it
 * comes back (with the text that came back).
 * @param {{ viaWorker?: boolean, payload?: string }} [opts]
 */
export async function serveEchoPage({ viaWorker = false, payload = PAYLOAD } = {}) {
  const http = createServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store' });
    res.end(viaWorker ? WORKER_PAGE : PAGE);
  });
  const wss = new WebSocketServer({ server: http, path: '/echo' });
  await new Promise((resolve) => http.listen(0, '127.0.0.1', resolve));
  const port = /** @type {import('node:net').AddressInfo} */ (http.address()).port;
  /** @type {Promise<import('ws').WebSocket>} */
  const connected = new Promise((resolve) => wss.once('connection', resolve));

  /** @type {Map<string, (text: string) => void>} */
  const waiting = new Map();
  let socket = null;
  void connected.then((ws) => {
    socket = ws;
    ws.on('message', (data) => {
      const text = data.toString();
      const id = text.slice(0, text.indexOf('|'));
      const resolve = waiting.get(id);
      waiting.delete(id);
      resolve?.(text);
    });
  });
  let nextId = 0;
  const send = (resolve) => {
    const id = String(nextId++);
    waiting.set(id, resolve);
    socket.send(`${id}|${payload}`);
  };

  return {
    pageUrl: `http://127.0.0.1:${port}/`,
    /** Resolves with the page's socket once it connects (rejects after `ms`). */
    connected(ms = 15_000) {
      return Promise.race([
        connected,
        new Promise((_, reject) =>
          setTimeout(() => reject(new Error(`the echo page did not connect within ${ms / 1000} s`)), ms).unref(),
        ),
      ]);
    },
    /** One echo round trip. */
    echo() {
      if (socket) return new Promise(send);
      return connected.then(() => new Promise(send));
    },
    async close() {
      socket?.close();
      wss.close();
      await new Promise((resolve) => http.close(resolve));
    },
  };
}

/**
 * @param {{ newPage: Function }} h the harness
 * @param {import('playwright-core').Browser} browser
 * @param {{ viaWorker?: boolean }} [opts]
 */
export async function openWsFloor(h, browser, { viaWorker = false } = {}) {
  const served = await serveEchoPage({ viaWorker });
  const connected = served.connected();
  const tab = await h.newPage(browser);
  await tab.page.goto(served.pageUrl);
  await connected;
  return {
    /** One echo round trip. */
    echo: () => served.echo().then(() => undefined),
    async close() {
      const closing = served.close();
      await tab.close();
      await closing;
    },
  };
}
