import { createServer, request as httpRequest, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { readBody } from './body.js';

const servers: Server[] = [];
afterEach(async () => {
  for (const server of servers.splice(0)) {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
});

/** A server handing each request's readBody outcome (text, null, or the error) to the returned promise. */
async function reading(maxBytes: number): Promise<{ port: number; outcome: Promise<string | null | Error> }> {
  let settle!: (outcome: string | null | Error) => void;
  const outcome = new Promise<string | null | Error>((resolve) => (settle = resolve));
  const server = createServer((req: IncomingMessage, res) => {
    readBody(req, maxBytes).then(
      (text) => {
        settle(text);
        if (!res.destroyed) res.end('ok');
      },
      (error: Error) => settle(error),
    );
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { port: (server.address() as AddressInfo).port, outcome };
}

describe('readBody', () => {
  it('reads a body sent in several chunks, multi-byte characters split across them', async () => {
    const { port, outcome } = await reading(1024);
    const req = httpRequest({ port, host: '127.0.0.1', method: 'POST', agent: false });
    req.on('error', () => undefined);
    const bytes = Buffer.from('{"text":"é€😀"}', 'utf8');
    req.write(bytes.subarray(0, 10));
    await new Promise((resolve) => setTimeout(resolve, 20));
    req.end(bytes.subarray(10));
    expect(await outcome).toBe('{"text":"é€😀"}');
  });

  it('answers null for a declared length over the bound, before reading', async () => {
    const { port, outcome } = await reading(8);
    const req = httpRequest({
      port,
      host: '127.0.0.1',
      method: 'POST',
      agent: false,
      headers: { 'content-length': 9 },
    });
    req.on('error', () => undefined);
    req.end('123456789');
    expect(await outcome).toBeNull();
  });

  it('answers null once a chunked body passes the bound', async () => {
    const { port, outcome } = await reading(8);
    const req = httpRequest({ port, host: '127.0.0.1', method: 'POST', agent: false });
    req.on('error', () => undefined);
    req.write('12345');
    await new Promise((resolve) => setTimeout(resolve, 20));
    req.write('67890');
    expect(await outcome).toBeNull();
    req.destroy();
  });

  it('rejects when the client goes away before the body ends', async () => {
    const { port, outcome } = await reading(1024);
    const req = httpRequest({ port, host: '127.0.0.1', method: 'POST', agent: false });
    req.on('error', () => undefined);
    req.write('{"partial":');
    await new Promise((resolve) => setTimeout(resolve, 20));
    req.destroy();
    expect(await outcome).toBeInstanceOf(Error);
  });
});
