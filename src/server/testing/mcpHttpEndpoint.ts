/**
 * Test support for `/mcp` over a real socket: an {@link McpHttpEndpoint} on a
 * loopback port with an {@link InMemoryHub} behind it, and a raw JSON POST to
 * it (no MCP client, so a test chooses every header and body).
 */
import { createServer, request as httpRequest, type Server as HttpServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { ServerConfig } from '../config.js';
import { McpHttpEndpoint } from '../http/mcpEndpoint.js';
import { createLogger } from '../log.js';
import { fixedKeySource } from '../mcp/attachments/attachmentKey.js';
import type { IdleClock } from '../mcp/attachments/statelessAttachments.js';
import { createHttpFront, type HttpFront } from '../mcp/httpFront.js';
import { testConfig } from './testHarness.js';
import { InMemoryHub } from './testHub.js';

export interface ServedEndpoint {
  hub: InMemoryHub;
  endpoint: McpHttpEndpoint;
  front: HttpFront;
  /** `http://127.0.0.1:<port>/mcp` */
  url: string;
  /** Closes the endpoint and its server. */
  stop(): Promise<void>;
}

/** Serves `/mcp` on a loopback port; `config` defaults to a silent test config. */
export async function serveMcpEndpoint(
  options: { config?: ServerConfig; clock?: IdleClock } = {},
): Promise<ServedEndpoint> {
  const hub = new InMemoryHub();
  const logger = createLogger('silent');
  const front = createHttpFront({
    hub,
    config: options.config ?? testConfig({ logLevel: 'silent' }),
    logger,
    serverVersion: '0.0.0-test',
    keySource: fixedKeySource(),
    ...(options.clock ? { clock: options.clock } : {}),
  });
  const endpoint = new McpHttpEndpoint(() => Promise.resolve(front), logger, options.clock);
  const http: HttpServer = createServer((req, res) => void endpoint.handle(req, res));
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(http.address() as AddressInfo).port}/mcp`;
  const stop = async () => {
    await endpoint.close();
    http.closeAllConnections();
    await new Promise((resolve) => http.close(resolve));
  };
  return { hub, endpoint, front, url, stop };
}

/** POSTs `body` as JSON to `url` (accepting JSON and event streams) and reads the whole answer. */
export function postJson(
  url: string,
  headers: Record<string, string>,
  body: unknown,
): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      url,
      {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers },
      },
      (res) => {
        let text = '';
        res.on('data', (c: Buffer) => (text += c.toString()));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, text }));
      },
    );
    req.on('error', reject);
    req.end(JSON.stringify(body));
  });
}
