/**
 * Test support: a real SDK `Client` wired to the MCP front, with an
 * {@link InMemoryHub} behind it: a 2025-11-25 connection through an in-memory
 * linked transport pair ({@link connectFront}), or a stateless 2026-07-28
 * client whose requests the SDK's HTTP handler serves in-process
 * ({@link connectStatelessFront}).
 */
import { Client, InMemoryTransport, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { createMcpHandler, type McpHttpHandler, type Server } from '@modelcontextprotocol/server';
import { isDeepStrictEqual } from 'node:util';
import { DEFAULT_LIMITS, type ErrorObject, type Meta, type Operation, type ToolName } from '../../protocol/index.js';
import type { ServerConfig } from '../config.js';
import type { HubPort } from '../hub/hubPort.js';
import { createLogger } from '../log.js';
import { fixedKeySource } from '../mcp/attachments/attachmentKey.js';
import { createMcpServer, type McpExtension } from '../mcp/createMcpServer.js';
import { createHttpFront, type HttpFront } from '../mcp/httpFront.js';
import type { IdleClock } from '../mcp/attachments/statelessAttachments.js';
import { InMemoryHub } from './testHub.js';

/** A configuration with the product defaults: read + write, every tool, default limits. */
export function testConfig(overrides: Partial<ServerConfig> = {}): ServerConfig {
  return {
    adapter: { maxAccess: 'write', allowControls: null },
    toolAllowlist: null,
    limits: { ...DEFAULT_LIMITS },
    allowedOrigins: [],
    bearerToken: null,
    home: '/nonexistent/tradescript-mcp-test',
    logLevel: 'debug',
    pairGrant: 'write',
    ...overrides,
  };
}

/** A connected client, its server, the hub behind it and every log line. */
export interface Harness<H extends HubPort = InMemoryHub> {
  client: Client;
  /** The connection's server (a stateless client has one per request: null). */
  server: Server | null;
  hub: H;
  logs: string[];
  close(): Promise<void>;
}

/** Options of {@link connectClient}. */
export interface HarnessOptions {
  config?: Partial<ServerConfig>;
  tools?: readonly ToolName[];
  clientName?: string;
  /** Adds to every server instance (see {@link McpExtension}). */
  extend?: McpExtension;
}

/** Resolves once `predicate` holds, polling the event loop (fails after ~1 s). */
export async function waitFor(predicate: () => boolean, what = 'condition'): Promise<void> {
  for (let i = 0; i < 200; i += 1) {
    if (predicate()) return;
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
  throw new Error(`Timed out waiting for ${what}.`);
}

/** The hub as the front sees it, with a signal for when the front has attached. */
function watchAttach(hub: HubPort): { port: HubPort; attached: Promise<void> } {
  let done: () => void = () => undefined;
  const attached = new Promise<void>((resolve) => (done = resolve));
  const port: HubPort = {
    attach: async (info) => {
      const handle = await hub.attach(info);
      done();
      return handle;
    },
    resume: async (kept, info) => {
      const handle = await hub.resume(kept, info);
      if (handle) done();
      return handle;
    },
    detach: (id) => hub.detach(id),
    listSessions: () => hub.listSessions(),
    catalog: (maxBytes) => hub.catalog(maxBytes),
    request: (...args) => hub.request(...args),
    on: (event, listener) => hub.on(event, listener),
  };
  return { port, attached };
}

/**
 * Connects a real client to a fresh MCP front on `hub`, waits until it is
 * attached and lists the tools (so the client validates every result against
 * outputSchema).
 */
export async function connectFront<H extends HubPort>(hub: H, options: HarnessOptions = {}): Promise<Harness<H>> {
  const logs: string[] = [];
  const { port, attached } = watchAttach(hub);
  const server = createMcpServer({
    hub: port,
    config: testConfig(options.config),
    logger: createLogger('debug', (line) => logs.push(line)),
    transport: 'stdio',
    serverVersion: '0.0.0-test',
    ...(options.tools ? { tools: options.tools } : {}),
    ...(options.extend ? { extend: options.extend } : {}),
  });
  const client = new Client({ name: options.clientName ?? 'vitest-client', version: '1.0.0' });
  const [clientTransport, serverTransport] = InMemoryTransport.createLinkedPair();
  await server.connect(serverTransport);
  await client.connect(clientTransport);
  await attached;
  await client.listTools();
  return { client, server, hub, logs, close: () => client.close() };
}

/** Options of {@link connectStatelessFront}. */
export interface StatelessHarnessOptions extends HarnessOptions {
  /** Share one front (its attachments and key) between several clients. */
  front?: HttpFront;
  clock?: IdleClock;
}

/** A stateless 2026-07-28 client, the front and the handler serving it. */
export interface StatelessHarness<H extends HubPort = InMemoryHub> extends Harness<H> {
  front: HttpFront;
  handler: McpHttpHandler;
}

/** The HTTP front of `hub` as `/mcp` builds it, with a fixed in-memory key. */
export function statelessFront(
  hub: HubPort,
  options: StatelessHarnessOptions = {},
): { front: HttpFront; logs: string[] } {
  const logs: string[] = [];
  const front = createHttpFront({
    hub,
    config: testConfig(options.config),
    logger: createLogger('debug', (line) => logs.push(line)),
    serverVersion: '0.0.0-test',
    keySource: fixedKeySource(),
    ...(options.tools ? { tools: options.tools } : {}),
    ...(options.clock ? { clock: options.clock } : {}),
    ...(options.extend ? { extend: options.extend } : {}),
  });
  return { front, logs };
}

/**
 * A real client negotiating 2026-07-28 with the SDK's HTTP handler serving
 * `hub`'s front in-process (no socket: the handler's fetch is the transport's).
 */
export async function connectStatelessFront<H extends HubPort>(
  hub: H,
  options: StatelessHarnessOptions = {},
): Promise<StatelessHarness<H>> {
  const made = options.front ? { front: options.front, logs: [] as string[] } : statelessFront(hub, options);
  const handler = createMcpHandler(() => made.front.request(''), { legacy: 'reject' });
  const unpublish = made.front.publishTo(handler.notify);
  const transport = new StreamableHTTPClientTransport(new URL('http://stateless.test/mcp'), {
    fetch: (url, init) => handler.fetch(new Request(url, init)),
  });
  const client = new Client(
    { name: options.clientName ?? 'vitest-stateless', version: '1.0.0' },
    { versionNegotiation: { mode: { pin: '2026-07-28' } } },
  );
  await client.connect(transport);
  await client.listTools();
  return {
    client,
    server: null,
    hub,
    logs: made.logs,
    front: made.front,
    handler,
    close: async () => {
      unpublish();
      await client.close();
      await handler.close();
    },
  };
}

/** {@link connectFront} on a fresh {@link InMemoryHub}. */
export function connectClient(options: HarnessOptions = {}): Promise<Harness> {
  return connectFront(new InMemoryHub(), options);
}

/** A tool result's payload, read from its text item. */
export interface Payload {
  data: Record<string, unknown> | null;
  error: ErrorObject | null;
  meta: Meta;
}

/**
 * Reads a tool result's payload and checks the SPEC §4 invariants, throwing on
 * any breach: the text item and structuredContent carry the same JSON, keys
 * are exactly data/error/meta, exactly one of data/error is non-null, and
 * isError says which.
 */
export function envelopeOf(result: unknown): Payload {
  const r = result as {
    content?: Array<{ type: string; text?: string }>;
    structuredContent?: unknown;
    isError?: boolean;
  };
  const text = r.content?.[0];
  if (text?.type !== 'text' || text.text === undefined) throw new Error('The first content item is not text.');
  const payload = JSON.parse(text.text) as Payload;
  if (!isDeepStrictEqual(payload, r.structuredContent)) throw new Error('structuredContent differs from the text.');
  if (Object.keys(payload).sort().join() !== 'data,error,meta')
    throw new Error('Payload keys are not data/error/meta.');
  if ((payload.data === null) === (payload.error === null)) throw new Error('Not exactly one of data/error is set.');
  if (r.isError !== (payload.error !== null)) throw new Error('isError disagrees with the payload.');
  return payload;
}

/** Calls a tool through the real client (which validates outputSchema) and reads its checked payload. */
export async function callEnvelope(harness: Harness, name: string, args: Record<string, unknown>) {
  const result = await harness.client.callTool({ name, arguments: args });
  return { result, payload: envelopeOf(result) };
}

/** The operation of the hub's `index`-th request, checked to be of `kind`. */
export function sentOp<K extends Operation['kind']>(
  harness: Harness,
  index: number,
  kind: K,
): Extract<Operation, { kind: K }> {
  const op = harness.hub.requests[index]?.op;
  if (op?.kind !== kind) throw new Error(`Hub request ${index} is not a ${kind} operation.`);
  return op as Extract<Operation, { kind: K }>;
}
