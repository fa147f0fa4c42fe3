/**
 * The demo terminal's own origin (SPEC §9, §11): a second node:http server
 * serving the built demo from `dist/demo` (GET and HEAD only, no path
 * traversal), plus `/tradescript-config.json` naming the relay. When the demo
 * has not been built, a plain page says how to build it.
 */
import { createReadStream, existsSync, statSync } from 'node:fs';
import { createServer, type IncomingMessage, type ServerResponse, type Server as HttpServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { extname, join, normalize, sep } from 'node:path';
import { closeServer, listen } from '../listen.js';
import { displayHost, hostMatches, type BoundAddress } from '../requestGuard.js';
import { packageRoot } from './packageRoot.js';

const CONTENT_TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json',
  '.map': 'application/json',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.jpg': 'image/jpeg',
  '.webp': 'image/webp',
  '.ico': 'image/x-icon',
  '.woff2': 'font/woff2',
  '.woff': 'font/woff',
  '.txt': 'text/plain; charset=utf-8',
  '.wasm': 'application/wasm',
};

const NOT_BUILT =
  '<!doctype html><meta charset="utf-8"><title>TradeScript demo not built</title>' +
  '<p>The demo terminal has not been built yet. Run <code>npm run build</code>, then start ' +
  '<code>npx tradescript-mcp demo</code> again.</p>\n';

/** Options of {@link startDemoServer}. */
export interface DemoServerOptions {
  /** The relay URL `/tradescript-config.json` names, read per request. */
  relayUrl: () => string;
  /** Where the built demo is (default `<package root>/dist/demo`). */
  root?: string;
}

/** The running demo server. */
export interface DemoServer {
  readonly bound: BoundAddress;
  /** `http://HOST:PORT/` */
  readonly url: string;
  readonly http: HttpServer;
  close(): Promise<void>;
}

function send(res: ServerResponse, status: number, type: string, body: string, head: boolean): void {
  res.writeHead(status, { 'Content-Type': type, 'Content-Length': Buffer.byteLength(body), ...SECURITY_HEADERS });
  res.end(head ? undefined : body);
}

/**
 * Sent with everything the demo serves. `frame-ancestors 'none'` (SPEC §9):
 * every loopback port is the same site to the browser, so a page on another
 * port could otherwise frame the terminal, which would pair with the stored
 * credential and could be clickjacked.
 */
const SECURITY_HEADERS = {
  'Content-Security-Policy': "frame-ancestors 'none'",
  'X-Frame-Options': 'DENY',
  'X-Content-Type-Options': 'nosniff',
  'Cache-Control': 'no-cache',
  'Referrer-Policy': 'no-referrer',
};

/** The file under `root` a URL path names, or null for traversal and odd paths. */
export function resolveDemoPath(root: string, urlPath: string): string | null {
  let decoded: string;
  try {
    decoded = decodeURIComponent(urlPath);
  } catch {
    return null;
  }
  if (decoded.includes('\0') || !decoded.startsWith('/')) return null;
  const relative = normalize(decoded === '/' ? '/index.html' : decoded).replace(/^[/\\]+/, '');
  const full = join(root, relative);
  return full === root || full.startsWith(root.endsWith(sep) ? root : root + sep) ? full : null;
}

function serveFile(req: IncomingMessage, res: ServerResponse, root: string, path: string): void {
  const head = req.method === 'HEAD';
  const file = resolveDemoPath(root, path);
  if (file === null) return send(res, 400, 'text/plain; charset=utf-8', 'bad path\n', head);
  if (!existsSync(file) || !statSync(file).isFile())
    return send(res, 404, 'text/plain; charset=utf-8', 'not found\n', head);
  const type = CONTENT_TYPES[extname(file).toLowerCase()] ?? 'application/octet-stream';
  res.writeHead(200, { 'Content-Type': type, 'Content-Length': statSync(file).size, ...SECURITY_HEADERS });
  if (head) return void res.end();
  createReadStream(file)
    .on('error', () => res.destroy())
    .pipe(res);
}

/** Listens on `bind` and serves the demo. */
export async function startDemoServer(bind: BoundAddress, options: DemoServerOptions): Promise<DemoServer> {
  const root = options.root ?? join(packageRoot(), 'dist', 'demo');
  const bound: BoundAddress = { ...bind };
  const http = createServer((req, res) => {
    const head = req.method === 'HEAD';
    if (req.method !== 'GET' && !head) {
      res.writeHead(405, { Allow: 'GET, HEAD', ...SECURITY_HEADERS }).end();
      return;
    }
    if (!hostMatches(req.headers.host, bound))
      return send(res, 403, 'text/plain; charset=utf-8', 'forbidden host\n', head);
    const path = (req.url ?? '/').split('?')[0] ?? '/';
    if (path === '/tradescript-config.json') {
      return send(res, 200, 'application/json', JSON.stringify({ relayUrl: options.relayUrl() }), head);
    }
    if (!existsSync(join(root, 'index.html'))) return send(res, 200, 'text/html; charset=utf-8', NOT_BUILT, head);
    serveFile(req, res, root, path);
  });
  await listen(http, bind);
  bound.port = (http.address() as AddressInfo).port;
  return { bound, url: `http://${displayHost(bind.host)}:${bound.port}/`, http, close: () => closeServer(http) };
}
