/**
 * Test peers of a started server over real loopback sockets: a browser tab on
 * the relay (pairs by code or presents its credential, opens a session, hands
 * back frames) and an MCP client transport over a pair of streams (stdio).
 */
import type { PassThrough } from 'node:stream';
import { ReadBuffer, serializeMessage, type JSONRPCMessage, type Transport } from '@modelcontextprotocol/client';
import WebSocket from 'ws';
import { makeError, type Credential } from '../../protocol/index.js';

/** A tab with an open session. */
export interface TestTab {
  ws: WebSocket;
  sessionId: string;
  /** The credential the server issued when the tab paired by code. */
  credential: Credential | null;
  /** The next frame of type `t` (taken once). */
  next(t: string): Promise<Record<string, unknown>>;
  /** Answers a request frame with success data. */
  answer(id: unknown, data: unknown): void;
  /** Answers a request frame with `target_not_found` (a page's answer any tool passes through). */
  refuse(id: unknown): void;
}

/** How a tab proves itself, and the session id it keeps. */
export type TabAuth = { code: string } | { credential: Credential; sessionId?: string };

/** A browser tab over a real WebSocket: hello, one session, frames handed back. */
export async function openTab(relayUrl: string, origin: string, auth: TabAuth): Promise<TestTab> {
  const ws = new WebSocket(relayUrl, { headers: { origin } });
  await new Promise((resolve, reject) => ws.once('open', resolve).once('error', reject));
  const frames: Array<Record<string, unknown>> = [];
  const waiters: Array<() => void> = [];
  ws.on('message', (d) => {
    frames.push(JSON.parse(String(d)) as Record<string, unknown>);
    for (const w of waiters.splice(0)) w();
  });
  const next = async (t: string) => {
    for (;;) {
      const hit = frames.find((f) => f.t === t);
      if (hit) return frames.splice(frames.indexOf(hit), 1)[0] as Record<string, unknown>;
      await new Promise<void>((resolve) => waiters.push(resolve));
    }
  };
  const hello =
    'code' in auth ? { kind: 'pair', code: auth.code } : { kind: 'credential', credential: auth.credential };
  ws.send(JSON.stringify({ t: 'hello', v: 1, agent: { kind: 'page', version: 't' }, auth: hello }));
  const welcome = await next('welcome');
  ws.send(
    JSON.stringify({
      t: 'session.open',
      ref: 'r',
      ...('sessionId' in auth && auth.sessionId ? { sessionId: auth.sessionId } : {}),
      info: { title: 'Demo', environment: 'paper' },
      catalog: { controls: [], channels: [] },
    }),
  );
  const opened = await next('session.opened');
  return {
    ws,
    next,
    sessionId: opened.sessionId as string,
    credential: (welcome.credential as Credential | undefined) ?? ('credential' in auth ? auth.credential : null),
    answer: (id, data) =>
      ws.send(JSON.stringify({ t: 'response', id, environment: 'paper', outcome: { ok: true, data } })),
    refuse: (id) =>
      ws.send(
        JSON.stringify({
          t: 'response',
          id,
          environment: 'paper',
          outcome: { ok: false, error: makeError('target_not_found', 'No such target.') },
        }),
      ),
  };
}

/** An MCP client transport over a pair of streams (the server's stdin and stdout). */
export function streamTransport(toServer: PassThrough, fromServer: PassThrough): Transport {
  const buffer = new ReadBuffer();
  const transport: Transport = {
    start: async () => {
      fromServer.on('data', (chunk: Buffer) => {
        buffer.append(chunk);
        for (let m = buffer.readMessage(); m; m = buffer.readMessage()) transport.onmessage?.(m);
      });
    },
    send: async (message: JSONRPCMessage) => void toServer.write(serializeMessage(message)),
    close: async () => {
      toServer.end();
      transport.onclose?.();
    },
  };
  return transport;
}
