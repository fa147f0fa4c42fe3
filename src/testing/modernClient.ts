/**
 * Test support: a 2026-07-28 (stateless) MCP client whose requests go where a
 * {@link NodeRotation} sends them — every request may reach another node of a
 * cluster (SPEC §13, §14). Not product code.
 */
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import type { ErrorObject } from '../protocol/index.js';
import type { NodeRotation } from './nodeRotation.js';

/** Connects a client sending `Authorization: Bearer <token>` with every request. */
export async function connectModernClient(token: string, rotation: NodeRotation, name = 'modern'): Promise<Client> {
  // The URL only carries the path: the rotation picks the node of each request.
  const transport = new StreamableHTTPClientTransport(new URL('http://127.0.0.1/mcp'), {
    fetch: rotation.fetch,
    requestInit: { headers: { Authorization: `Bearer ${token}` } },
  });
  const client = new Client({ name, version: '1.0.0' }, { versionNegotiation: { mode: { pin: '2026-07-28' } } });
  await client.connect(transport);
  return client;
}

/** A tool result's payload (SPEC §4). */
export interface ToolPayload {
  data: Record<string, unknown> | null;
  error: ErrorObject | null;
  meta: { attachment?: string; sessionId?: string | null };
}

/** Calls a tool and returns its payload. */
export async function callToolPayload(
  client: Client,
  name: string,
  args: Record<string, unknown>,
): Promise<ToolPayload> {
  const result = await client.callTool({ name, arguments: args });
  return result.structuredContent as unknown as ToolPayload;
}
