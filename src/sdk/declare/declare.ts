/**
 * How a terminal declares its controllers: zod signatures plus access class,
 * family, permission, risk and revision domains. Descriptors and argument JSON
 * Schemas are derived from these declarations, never written by hand (SPEC §5).
 */
import * as z from 'zod/mini';
import type { AccessClass, ControlDescriptor, Risk, TargetScope } from '../../protocol/index.js';

/** One named positional argument. */
export interface ArgSpec<S extends z.core.$ZodType = z.core.$ZodType> {
  readonly name: string;
  readonly schema: S;
}

/** Declares a named positional argument. An optional schema makes it optional. */
export function arg<const N extends string, S extends z.core.$ZodType>(name: N, schema: S): ArgSpec<S> {
  return { name, schema };
}

/** The declaration of one control. */
export interface ControlSpec<
  A extends readonly ArgSpec[] = readonly ArgSpec[],
  R extends z.core.$ZodType = z.core.$ZodType,
> {
  /** For a model: what it does, and what to call before or after it. */
  readonly description: string;
  /** Positional arguments, in order. */
  readonly args: A;
  /** The result's schema; results are validated before they leave the page. */
  readonly result: R;
  readonly accessClass: AccessClass;
  /** Exact policy family, e.g. `chart.viewport`. */
  readonly family: string;
  /** Permission label, e.g. `chart.write`. */
  readonly permission: string;
  readonly risk: Risk;
  readonly mutation: boolean;
  /** Revision domains this control checks (mutations) and may bump. */
  readonly revisionDomains?: readonly string[];
  /** Which argument is the guarded options object that receives the operation id. */
  readonly operationOptionsIndex?: number;
}

/** Declares one control, keeping its argument and result types. */
export function control<const A extends readonly ArgSpec[], R extends z.core.$ZodType>(
  spec: ControlSpec<A, R>,
): ControlSpec<A, R> {
  return spec;
}

/** A controller: a named group of controls mounted on targets of some scopes. */
export interface ControllerDeclaration<M extends Record<string, ControlSpec> = Record<string, ControlSpec>> {
  readonly name: string;
  readonly targetScopes: readonly TargetScope[];
  /** Every revision domain this controller keeps per target. */
  readonly revisionDomains: readonly string[];
  readonly controls: M;
}

/**
 * Declares a controller. Refuses an inconsistent declaration (SPEC §5): a
 * `financial` control must be `trade` and a mutation, a `trade` control must be
 * a mutation, a `read` control must not be one, revision domains must be the
 * controller's own, and the options index must name an argument.
 */
export function declareController<const M extends Record<string, ControlSpec>>(
  declaration: ControllerDeclaration<M>,
): ControllerDeclaration<M> {
  const { name } = declaration;
  if (!/^[a-z][A-Za-z0-9]*$/.test(name))
    throw new Error(`Controller name "${name}" must be camelCase letters and digits.`);
  for (const [method, spec] of Object.entries(declaration.controls)) {
    const id = `${name}.${method}`;
    if (!/^[a-z][A-Za-z0-9]*$/.test(method)) throw new Error(`${id}: method names are camelCase letters and digits.`);
    if (spec.risk === 'financial' && (spec.accessClass !== 'trade' || !spec.mutation)) {
      throw new Error(`${id}: a financial control must be accessClass "trade" and a mutation.`);
    }
    if (spec.accessClass === 'trade' && !spec.mutation) throw new Error(`${id}: a trade control must be a mutation.`);
    if (spec.accessClass === 'read' && spec.mutation) throw new Error(`${id}: a read control must not be a mutation.`);
    for (const domain of spec.revisionDomains ?? []) {
      if (!declaration.revisionDomains.includes(domain)) {
        throw new Error(`${id}: revision domain "${domain}" is not declared by controller ${name}.`);
      }
    }
    const index = spec.operationOptionsIndex;
    if (index !== undefined && (index < 0 || index >= spec.args.length)) {
      throw new Error(`${id}: operationOptionsIndex ${index} names no argument.`);
    }
  }
  return declaration;
}

/** The value types of positional arguments. */
export type ArgValues<A extends readonly ArgSpec[]> = {
  -readonly [I in keyof A]: A[I] extends ArgSpec<infer T> ? z.output<T> : never;
};

/** The value types of a control's positional arguments. */
export type ArgsOf<S extends ControlSpec> = S extends ControlSpec<infer A, z.core.$ZodType> ? ArgValues<A> : never;

/** The value type of a control's result. */
export type ResultOf<S extends ControlSpec> = z.input<S['result']>;

/**
 * A portable JSON Schema for one zod schema (no `$schema` key): of what it
 * accepts (`input`, the default) or of what it produces (`output`).
 */
export function portableJsonSchema(schema: z.core.$ZodType, io: 'input' | 'output' = 'input'): Record<string, unknown> {
  const json = z.toJSONSchema(schema, { unrepresentable: 'any', io }) as Record<string, unknown>;
  delete json['$schema'];
  return json;
}

/** Renders a JSON Schema as a short TS-style type for signatures. */
export function typeText(schema: Record<string, unknown>, depth = 0): string {
  if (depth > 3) return '…';
  if ('const' in schema) return JSON.stringify(schema['const']);
  const anyOf = (schema['anyOf'] ?? schema['oneOf']) as Record<string, unknown>[] | undefined;
  if (Array.isArray(anyOf)) return anyOf.map((s) => typeText(s, depth + 1)).join(' | ');
  if (Array.isArray(schema['enum'])) return (schema['enum'] as unknown[]).map((v) => JSON.stringify(v)).join(' | ');
  switch (schema['type']) {
    case 'string':
      return 'string';
    case 'integer':
    case 'number':
      return 'number';
    case 'boolean':
      return 'boolean';
    case 'null':
      return 'null';
    case 'array':
      return `${wrap(typeText((schema['items'] as Record<string, unknown>) ?? {}, depth + 1))}[]`;
    case 'object': {
      const props = (schema['properties'] ?? {}) as Record<string, Record<string, unknown>>;
      const required = new Set((schema['required'] as string[] | undefined) ?? []);
      const fields = Object.entries(props).map(
        ([key, value]) => `${key}${required.has(key) ? '' : '?'}: ${typeText(value, depth + 1)}`,
      );
      return fields.length ? `{ ${fields.join('; ')} }` : 'object';
    }
    default:
      return 'unknown';
  }
}

function wrap(text: string): string {
  return text.includes('|') ? `(${text})` : text;
}

/** Derives the public descriptor of one declared control. */
export function describeControl(controller: ControllerDeclaration, method: string): ControlDescriptor {
  const spec = controller.controls[method];
  if (!spec) throw new Error(`${controller.name}.${method} is not declared.`);
  const args = spec.args.map((a) => {
    const schema = portableJsonSchema(a.schema);
    return { name: a.name, required: !z.safeParse(a.schema, undefined).success, schema };
  });
  const params = args.map((a) => `${a.name}${a.required ? '' : '?'}: ${typeText(a.schema)}`).join(', ');
  const result = typeText(portableJsonSchema(spec.result));
  return {
    controlId: `${controller.name}.${method}`,
    controller: controller.name,
    method,
    signature: `${method}(${params}): ${result}`,
    description: spec.description,
    args,
    targetScopes: [...controller.targetScopes],
    accessClass: spec.accessClass,
    family: spec.family,
    permission: spec.permission,
    mutation: spec.mutation,
    risk: spec.risk,
    revisionDomains: [...(spec.revisionDomains ?? [])],
    operationOptionsIndex: spec.operationOptionsIndex ?? null,
  };
}

/** Every descriptor of a controller, in declaration order. */
export function describeController(controller: ControllerDeclaration): ControlDescriptor[] {
  return Object.keys(controller.controls).map((method) => describeControl(controller, method));
}
