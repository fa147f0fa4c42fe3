/**
 * Requests a well-behaved client would never send, for the trust and hostile
 * tests: a raw `initialize` POST to `/mcp` with any Host and Origin (or none),
 * and a relay upgrade with any headers. Each resolves with the HTTP status.
 */
import { request } from 'node:http';
import { WebSocket } from 'ws';

/**
 * POSTs `initialize` to `mcpUrl` with these headers (an undefined value sends
 * no such header; `setHost: false` sends no Host at all).
 */
export function rawInitializeStatus(
  mcpUrl: string,
  headers: Record<string, string | undefined>,
  setHost = true,
): Promise<number> {
  const target = new URL(mcpUrl);
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: target.hostname,
        port: target.port,
        path: target.pathname,
        method: 'POST',
        setHost,
        headers: Object.fromEntries(
          Object.entries({
            'content-type': 'application/json',
            accept: 'application/json, text/event-stream',
            ...headers,
          }).filter((entry): entry is [string, string] => entry[1] !== undefined),
        ),
      },
      (res) => {
        res.resume();
        resolve(res.statusCode ?? 0);
      },
    );
    req.on('error', reject);
    req.end(
      JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'initialize',
        params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
      }),
    );
  });
}

/** Opens a WebSocket to `url` with these headers: 101 when it opened, else the refusal's status (0: no answer). */
export function upgradeStatus(url: string, headers: Record<string, string>): Promise<number> {
  return new Promise((resolve) => {
    const socket = new WebSocket(url, { headers });
    socket.on('unexpected-response', (_req, res) => {
      resolve(res.statusCode ?? 0);
      socket.terminate();
    });
    socket.on('open', () => {
      resolve(101);
      socket.close();
    });
    socket.on('error', () => resolve(0));
  });
}

/** How a relay upgrade ended: the HTTP status, and for an opened socket how it closed and what it was sent. */
export interface UpgradeOutcome {
  status: number;
  close?: { code: number; reason: string };
  /** Frames the server sent before closing. */
  frames: number;
}

/**
 * Opens a WebSocket to `url` with these headers and, once open, says hello as
 * a tab would; resolves with the refusal's status, or with how the server
 * closed the socket (SPEC §9: a refused origin is closed with 4430 and nothing else).
 */
export function upgradeOutcome(url: string, headers: Record<string, string>): Promise<UpgradeOutcome> {
  return new Promise((resolve) => {
    const socket = new WebSocket(url, ['tradescript.relay.v1'], { headers });
    let frames = 0;
    socket.on('message', () => (frames += 1));
    socket.on('unexpected-response', (_req, res) => {
      resolve({ status: res.statusCode ?? 0, frames });
      socket.terminate();
    });
    socket.on('open', () =>
      socket.send(
        JSON.stringify({ t: 'hello', v: 1, agent: { kind: 'page', version: 't' }, auth: { kind: 'pair', code: 'X' } }),
      ),
    );
    socket.on('close', (code, reason) => resolve({ status: 101, close: { code, reason: reason.toString() }, frames }));
    socket.on('error', () => resolve({ status: 0, frames }));
  });
}
