/**
 * MCP over stdio (SPEC §11): newline-delimited JSON-RPC on stdin/stdout, the
 * wire `serveStdio` runs the connection on. It does what the SDK's
 * `StdioServerTransport` does with each message (a line of at most
 * {@link STDIO_DEFAULT_MAX_BUFFER_SIZE} bytes buffered, a line that is not
 * JSON skipped, JSON that is not a JSON-RPC message reported through
 * `onerror` and not delivered), with one difference of cost: the SDK checks
 * every line against its `JSONRPCMessageSchema` with zod, and this wire first
 * tries {@link plainJsonRpc}, which vouches only for the plain requests and
 * notifications a client sends on every call and hands everything else to
 * the SDK's own parse (`parseJSONRPCMessage`), errors included. The SDK's
 * `Protocol` still checks each message's kind and each request's params and
 * each result against the revision's schemas.
 */
import {
  parseJSONRPCMessage,
  STDIO_DEFAULT_MAX_BUFFER_SIZE,
  type JSONRPCMessage,
  type Transport,
} from '@modelcontextprotocol/server';
import type { Readable, Writable } from 'node:stream';
import { plainJsonRpc } from './jsonRpcShape.js';
import { messageLine } from './messageLine.js';

const NEWLINE = 0x0a;
const CARRIAGE_RETURN = 0x0d;
/** A JSON-RPC message of one line of JSON; throws the SDK's parse error for JSON that is not one. */
function readMessage(value: unknown): JSONRPCMessage {
  return plainJsonRpc(value) ? value : parseJSONRPCMessage(value);
}

/** The stdio wire of one MCP connection (an SDK {@link Transport}). */
export class StdioWire implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: Transport['onmessage'];
  private buffer: Buffer | null = null;
  private started = false;
  private closed = false;

  constructor(
    private readonly stdin: Readable,
    private readonly stdout: Writable,
    private readonly maxBufferSize: number = STDIO_DEFAULT_MAX_BUFFER_SIZE,
  ) {}

  private readonly ondata = (chunk: Buffer) => {
    try {
      const held = this.buffer?.length ?? 0;
      if (held + chunk.length > this.maxBufferSize) {
        this.buffer = null;
        throw new Error(`ReadBuffer exceeded maximum size of ${this.maxBufferSize} bytes`);
      }
      this.buffer = held === 0 ? chunk : Buffer.concat([this.buffer!, chunk]);
      this.readLines();
    } catch (error) {
      this.onerror?.(error as Error);
      void this.close();
    }
  };

  private readonly onstdinerror = (error: Error) => this.onerror?.(error);

  private readonly onstdouterror = (error: Error) => {
    // After close a late write failure is swallowed (the listener stays for that).
    if (this.closed) return;
    this.onerror?.(error);
    void this.close();
  };

  private readonly onstdinclose = () => void this.close();

  async start(): Promise<void> {
    if (this.started) throw new Error('StdioWire already started');
    this.started = true;
    if (this.stdin.readableEnded || this.stdin.destroyed) setImmediate(this.onstdinclose);
    this.stdin.on('data', this.ondata);
    this.stdin.on('error', this.onstdinerror);
    this.stdin.on('end', this.onstdinclose);
    this.stdin.on('close', this.onstdinclose);
    this.stdout.on('error', this.onstdouterror);
  }

  /** Delivers each complete line held; a line that is not JSON is skipped, as the SDK's transport does. */
  private readLines(): void {
    let buffer = this.buffer;
    while (buffer !== null && !this.closed) {
      const end = buffer.indexOf(NEWLINE);
      if (end === -1) break;
      const last = end > 0 && buffer[end - 1] === CARRIAGE_RETURN ? end - 1 : end;
      const line = buffer.toString('utf8', 0, last);
      buffer = end + 1 === buffer.length ? null : buffer.subarray(end + 1);
      this.buffer = buffer;
      let value: unknown;
      try {
        value = JSON.parse(line);
      } catch {
        continue;
      }
      try {
        this.onmessage?.(readMessage(value));
      } catch (error) {
        this.onerror?.(error as Error);
      }
      buffer = this.buffer;
    }
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.stdin.off('data', this.ondata);
    this.stdin.off('error', this.onstdinerror);
    this.stdin.off('end', this.onstdinclose);
    this.stdin.off('close', this.onstdinclose);
    if (this.stdin.listenerCount('data') === 0) this.stdin.pause();
    this.buffer = null;
    this.onclose?.();
  }

  send(message: JSONRPCMessage): Promise<void> {
    if (this.closed) return Promise.reject(new Error('StdioWire is closed'));
    const stdout = this.stdout;
    if (stdout.write(messageLine(message))) return Promise.resolve();
    return new Promise((resolve, reject) => {
      const settle = (error?: Error) => {
        stdout.off('error', settle);
        stdout.off('drain', settle);
        if (error) reject(error);
        else resolve();
      };
      stdout.once('error', settle);
      stdout.once('drain', settle);
    });
  }
}
