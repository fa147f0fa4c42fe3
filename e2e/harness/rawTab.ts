/**
 * A raw relay socket, as a hostile or scripted tab would open it: any Origin,
 * hand-written frames, every frame the server sends kept in order. Used by the
 * hostile tests (SPEC §9) to say hello, open sessions and answer requests
 * without a browser.
 */
import WebSocket from 'ws';
import type { CatalogDocument, Credential, ServerFrame } from '../../src/protocol/index.js';
import { TEST_CATALOG } from '../../src/server/testing/scriptedTab.js';
import { track } from './cleanup.js';

/** A raw relay socket. */
export class RawTab {
  readonly frames: ServerFrame[] = [];
  readonly closed: Promise<{ code: number; reason: string }>;
  private readonly socket: WebSocket;
  private waiters: Array<() => void> = [];
  private refs = 0;

  private constructor(socket: WebSocket) {
    this.socket = socket;
    socket.on('message', (data: Buffer) => {
      this.frames.push(JSON.parse(data.toString('utf8')) as ServerFrame);
      for (const wake of this.waiters.splice(0)) wake();
    });
    this.closed = new Promise((resolve) =>
      socket.on('close', (code, reason) => {
        resolve({ code, reason: reason.toString('utf8') });
        for (const wake of this.waiters.splice(0)) wake();
      }),
    );
    socket.on('error', () => undefined);
    const untrack = track(async () => this.close());
    void this.closed.then(untrack);
  }

  /** Opens the relay with `origin`; rejects when the upgrade is refused. */
  static open(relayUrl: string, origin: string): Promise<RawTab> {
    return new Promise((resolve, reject) => {
      const socket = new WebSocket(relayUrl, { headers: { origin } });
      socket.once('open', () => resolve(new RawTab(socket)));
      socket.once('unexpected-response', (_req, res) => reject(new Error(`upgrade refused: ${res.statusCode}`)));
    });
  }

  /** A tab of the credential's host with one open session. */
  static async withSession(
    relayUrl: string,
    origin: string,
    credential: Credential,
    title = 'raw tab',
    catalog: CatalogDocument = TEST_CATALOG,
  ): Promise<{ tab: RawTab; sessionId: string }> {
    const tab = await RawTab.open(relayUrl, origin);
    const hello = await tab.hello({ kind: 'credential', credential });
    if (!hello.welcome) throw new Error(`hello refused: ${hello.closed?.code}`);
    const opened = await tab.openSession(title, catalog);
    if (opened.sessionId === undefined) throw new Error(`session refused: ${opened.refused}`);
    return { tab, sessionId: opened.sessionId };
  }

  /** Sends `session.open`; resolves with the opened id or the refusal's message. */
  async openSession(
    title = 'raw tab',
    catalog: CatalogDocument = TEST_CATALOG,
  ): Promise<{ sessionId?: string; refused?: string }> {
    const ref = `r${++this.refs}`;
    this.send({ t: 'session.open', ref, info: { title, environment: 'paper', grant: 'write' }, catalog });
    const frame = await this.waitFor(
      (f): f is Extract<ServerFrame, { t: 'session.opened' | 'session.refused' }> =>
        (f.t === 'session.opened' || f.t === 'session.refused') && f.ref === ref,
      `the answer to ${ref}`,
    );
    return frame.t === 'session.opened' ? { sessionId: frame.sessionId } : { refused: frame.message };
  }

  send(frame: unknown): void {
    this.socket.send(typeof frame === 'string' ? frame : JSON.stringify(frame));
  }

  sendBinary(bytes: Buffer): void {
    this.socket.send(bytes, { binary: true });
  }

  /** The next frame of type `t` (bounded); rejects if the socket closes first. */
  next<T extends ServerFrame['t']>(t: T, timeoutMs = 10_000): Promise<Extract<ServerFrame, { t: T }>> {
    return this.waitFor((f): f is Extract<ServerFrame, { t: T }> => f.t === t, `a ${t} frame`, timeoutMs);
  }

  /** Says hello with `auth`; resolves with the welcome, or the close when refused. */
  async hello(auth: unknown): Promise<{ welcome?: Extract<ServerFrame, { t: 'welcome' }>; closed?: { code: number } }> {
    this.send({ t: 'hello', v: 1, agent: { kind: 'page', version: 't' }, auth });
    return Promise.race([
      this.next('welcome').then((welcome) => ({ welcome })),
      this.closed.then((closed) => ({ closed })),
    ]);
  }

  close(): void {
    this.socket.terminate();
  }

  /** Takes the first kept frame that matches (bounded wait). */
  private async waitFor<F extends ServerFrame>(
    match: (frame: ServerFrame) => frame is F,
    what: string,
    timeoutMs = 10_000,
  ): Promise<F> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const hit = this.frames.find(match);
      if (hit) {
        this.frames.splice(this.frames.indexOf(hit), 1);
        return hit;
      }
      if (this.socket.readyState === WebSocket.CLOSED) throw new Error(`closed before ${what}`);
      if (Date.now() > deadline) throw new Error(`no ${what} within ${timeoutMs} ms`);
      await new Promise<void>((resolve) => {
        this.waiters.push(resolve);
        setTimeout(resolve, 100);
      });
    }
  }
}
