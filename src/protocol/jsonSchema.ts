/**
 * Published JSON Schemas as third-party MCP clients read them. `z.toJSONSchema`
 * writes a union of objects (a target) as a bare `oneOf`; a client that picks a
 * value's form from `type` alone (the MCP Inspector CLI on Node 20 parses a
 * `--tool-arg` as JSON only when its schema says `"type": "object"`) then sends
 * the object as a string. Stating the type the branches share changes nothing
 * about what validates.
 *
 * A record (`z.record(z.string(), …)`) comes out with `propertyNames:
 * {"type": "string"}`, which every JSON object's keys satisfy. A client's
 * checks walk every subschema on every call (the SDK 2.4 client scans a tool's
 * whole input schema for `x-mcp-header` on each 2026-07-28 `callTool`, about
 * 1 µs a subschema), so the published schema leaves that one out.
 */

type JsonObject = { [key: string]: unknown };

const UNION_KEYWORDS = ['oneOf', 'anyOf'] as const;

function isObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The schema a local `#/$defs/…` (or `#/definitions/…`) reference names, if any. */
function resolve(root: JsonObject, schema: JsonObject): JsonObject {
  const ref = schema['$ref'];
  if (typeof ref !== 'string' || !ref.startsWith('#/')) return schema;
  let node: unknown = root;
  for (const part of ref.slice(2).split('/')) node = isObject(node) ? node[part] : undefined;
  return isObject(node) ? node : schema;
}

/** True when every branch of a union is an object schema (nested unions included). */
function allObjects(root: JsonObject, branches: unknown[]): boolean {
  return (
    branches.length > 0 &&
    branches.every((branch) => {
      if (!isObject(branch)) return false;
      const schema = resolve(root, branch);
      if (schema['type'] === 'object') return true;
      return UNION_KEYWORDS.some((key) => Array.isArray(schema[key]) && allObjects(root, schema[key] as unknown[]));
    })
  );
}

function annotate(root: JsonObject, node: unknown): unknown {
  if (Array.isArray(node)) return node.map((item) => annotate(root, item));
  if (!isObject(node)) return node;
  const copy: JsonObject = {};
  for (const [key, value] of Object.entries(node)) copy[key] = annotate(root, value);
  const union = UNION_KEYWORDS.find((key) => Array.isArray(node[key]));
  if (union !== undefined && copy['type'] === undefined && allObjects(root, node[union] as unknown[])) {
    copy['type'] = 'object';
  }
  return copy;
}

/**
 * A copy of `schema` in which every `oneOf`/`anyOf` whose branches are all
 * objects, and that names no type itself, also says `"type": "object"`.
 */
export function withObjectUnionTypes<T extends JsonObject>(schema: T): T {
  return annotate(schema, schema) as T;
}

/** Paths (`properties.target`, …) of object unions that do not say `"type": "object"`; empty when none. */
export function untypedObjectUnions(schema: JsonObject): string[] {
  const found: string[] = [];
  const visit = (node: unknown, path: string): void => {
    if (Array.isArray(node)) return node.forEach((item, i) => visit(item, `${path}[${i}]`));
    if (!isObject(node)) return;
    const union = UNION_KEYWORDS.find((key) => Array.isArray(node[key]));
    if (union !== undefined && node['type'] !== 'object' && allObjects(schema, node[union] as unknown[])) {
      found.push(path || '(root)');
    }
    for (const [key, value] of Object.entries(node)) visit(value, path ? `${path}.${key}` : key);
  };
  visit(schema, '');
  return found;
}

/** Keywords whose value maps names (not keywords) to subschemas. */
const SCHEMA_MAPS = new Set(['properties', 'patternProperties', '$defs', 'definitions', 'dependentSchemas']);

function isAnyString(value: unknown): boolean {
  return isObject(value) && Object.keys(value).length === 1 && value['type'] === 'string';
}

function trim(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(trim);
  if (!isObject(node)) return node;
  const copy: JsonObject = {};
  for (const [key, value] of Object.entries(node)) {
    if (key === 'propertyNames' && isAnyString(value)) continue;
    copy[key] = SCHEMA_MAPS.has(key) && isObject(value) ? mapValues(value) : trim(value);
  }
  return copy;
}

function mapValues(map: JsonObject): JsonObject {
  const copy: JsonObject = {};
  for (const [name, schema] of Object.entries(map)) copy[name] = trim(schema);
  return copy;
}

/**
 * A copy of `schema` without `propertyNames: {"type": "string"}`, which every
 * object's keys satisfy: the same values validate, with one subschema fewer
 * per record for a client to walk. Names under `properties` are left alone.
 */
export function withoutAnyStringPropertyNames<T extends JsonObject>(schema: T): T {
  return trim(schema) as T;
}
