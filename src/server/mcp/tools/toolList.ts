/**
 * Which tools this front serves and lists, and their published definitions
 * (SPEC §3, §5): shapes come from `TOOLS` in src/protocol, JSON Schemas are
 * derived from the zod schemas, never written here.
 */
import type { Tool } from '@modelcontextprotocol/server';
import { z } from 'zod';
import {
  AttachmentHandleSchema,
  ATTACHMENT_ARGUMENT,
  envelopeSchema,
  TOOLS,
  withObjectUnionTypes,
  withoutAnyStringPropertyNames,
  type ToolName,
} from '../../../protocol/index.js';

/** One tool definition from src/protocol. */
export type ToolDefinition = (typeof TOOLS)[number];

/**
 * The tools served by default: all six (SPEC §3). The bridge worker serves
 * subscriptions and snapshots itself; a front may pass fewer in `tools`.
 */
export const DEFAULT_SERVED_TOOLS: readonly ToolName[] = [
  'tradescript_get_context',
  'tradescript_list_controls',
  'tradescript_call',
  'tradescript_batch',
  'tradescript_subscribe',
  'tradescript_snapshot',
];

/** Looks up a served tool by name; undefined for an unknown or unserved name. */
export function findServedTool(served: ReadonlySet<ToolName>, name: string): ToolDefinition | undefined {
  return TOOLS.find((tool) => tool.name === name && served.has(tool.name));
}

/**
 * True when `--tool-allowlist` permits a tool. A batch is calls, so it is
 * allowed only when `tradescript_call` is too.
 */
export function isToolAllowed(allowlist: readonly ToolName[] | null, name: ToolName): boolean {
  if (allowlist === null) return true;
  if (name === 'tradescript_batch' && !allowlist.includes('tradescript_call')) return false;
  return allowlist.includes(name);
}

/**
 * A derived JSON Schema without its `$schema` key; MCP needs `type: "object"` on
 * top, and third-party clients on every union of objects (withObjectUnionTypes).
 * Records drop their `propertyNames: {"type": "string"}`, which admits every
 * key: clients walk each subschema per call (withoutAnyStringPropertyNames).
 */
function objectJsonSchema(schema: z.core.$ZodType, io: 'input' | 'output', toolName: string): Tool['inputSchema'] {
  const { $schema: _ignored, ...json } = z.toJSONSchema(schema, { io }) as Record<string, unknown>;
  if (json['type'] !== 'object') {
    throw new Error(`The ${io} schema of ${toolName} is not an object schema; fix it in src/protocol/tools.`);
  }
  return withoutAnyStringPropertyNames(withObjectUnionTypes(json)) as Tool['inputSchema'];
}

const published = new Map<ToolName, Tool>();

/** The MCP `Tool` entry of one definition (derived once per process). */
export function publishTool(tool: ToolDefinition): Tool {
  const cached = published.get(tool.name);
  if (cached) return cached;
  const entry = deriveTool(tool);
  published.set(tool.name, entry);
  return entry;
}

function deriveTool(tool: ToolDefinition): Tool {
  const input: z.core.$ZodType = 'published' in tool ? tool.published : tool.input;
  return {
    name: tool.name,
    title: tool.title,
    description: tool.description,
    inputSchema: objectJsonSchema(input, 'input', tool.name),
    outputSchema: objectJsonSchema(envelopeSchema(tool.data), 'output', tool.name) as Tool['outputSchema'],
    annotations: { title: tool.title, ...tool.annotations },
  };
}

const withHandle = new Map<ToolName, Tool>();

/**
 * The entry a stateless HTTP client sees: the same tool with the optional
 * `attachment` argument (docs/protocolRevisions.md), derived from the protocol's schema.
 */
export function publishStatelessTool(tool: ToolDefinition): Tool {
  const cached = withHandle.get(tool.name);
  if (cached) return cached;
  const base = publishTool(tool);
  const { $schema: _ignored, ...handle } = z.toJSONSchema(AttachmentHandleSchema) as Record<string, unknown>;
  const properties = { ...(base.inputSchema.properties ?? {}), [ATTACHMENT_ARGUMENT]: handle } as NonNullable<
    Tool['inputSchema']['properties']
  >;
  const entry: Tool = { ...base, inputSchema: { ...base.inputSchema, properties } };
  withHandle.set(tool.name, entry);
  return entry;
}

/**
 * Every published tool a client may see: served, and allowed by the
 * allowlist, in `TOOLS` order; with the `attachment` argument for stateless clients.
 */
export function listedTools(
  served: ReadonlySet<ToolName>,
  allowlist: readonly ToolName[] | null,
  takesHandle = false,
): Tool[] {
  return TOOLS.filter((tool) => served.has(tool.name) && isToolAllowed(allowlist, tool.name)).map(
    takesHandle ? publishStatelessTool : publishTool,
  );
}
