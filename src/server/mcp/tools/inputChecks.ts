/**
 * The server's own checks of tool arguments, in SPEC order: request size, JSON
 * shape, the tool's strict schema, then count limits. Limits are code, never
 * schema bounds, so they never surface as `invalid_input` (SPEC §6). The SDK's
 * built-in validation is never used: it echoes submitted values (SPEC §4).
 */
import {
  batchTool,
  boundDiagnostics,
  callTool,
  canonicalPath,
  checkJsonShape,
  findForbiddenKey,
  getContextTool,
  jsonByteLength,
  limitExceeded,
  listControlsTool,
  makeError,
  parseWithDiagnostics,
  RequestIdSchema,
  snapshotTool,
  subscribeTool,
  TOOLS,
  type BatchInput,
  type CallInput,
  type ErrorObject,
  type GetContextInput,
  type Limits,
  type ListControlsInput,
  type Parsed as ParseResult,
  type SnapshotInput,
  type SubscribeInput,
  type ToolName,
  type ValidationIssue,
} from '../../../protocol/index.js';
import { withFastPath } from '../../../protocol/fastParse.js';
import { z } from 'zod';

/** Validated arguments, tagged with their tool. */
export type ParsedInput =
  | { name: 'tradescript_get_context'; input: GetContextInput }
  | { name: 'tradescript_list_controls'; input: ListControlsInput }
  | { name: 'tradescript_call'; input: CallInput }
  | { name: 'tradescript_batch'; input: BatchInput }
  | { name: 'tradescript_subscribe'; input: SubscribeInput }
  | { name: 'tradescript_snapshot'; input: SnapshotInput };

/** The outcome of checking one request's arguments. */
export type CheckedInput = { ok: true; parsed: ParsedInput } | { ok: false; error: ErrorObject };

type Parsed = { ok: true; parsed: ParsedInput } | { ok: false; issues: ValidationIssue[] };

const FORBIDDEN_KEY_MESSAGE = 'Contains a field that is not allowed here; remove it.';

/**
 * A `__proto__` key anywhere (SPEC §4: unknown fields are rejected, never
 * stripped): a schema that copies keys would drop it silently or take it as a
 * prototype, so it is refused before parsing, at its canonical parent path.
 */
function forbiddenKeyIssue(name: ToolName, args: unknown): ValidationIssue | null {
  const at = findForbiddenKey(args);
  if (at === null) return null;
  const schema = TOOLS.find((tool) => tool.name === name)?.input;
  if (!schema) return null;
  return { path: canonicalPath(schema, at), code: 'unknown_field', message: FORBIDDEN_KEY_MESSAGE };
}

function parseFor(name: ToolName, args: unknown): Parsed {
  const forbidden = forbiddenKeyIssue(name, args);
  const parsed = parseSchema(name, args);
  if (!forbidden) return parsed;
  return { ok: false, issues: boundDiagnostics([forbidden, ...(parsed.ok ? [] : parsed.issues)]) };
}

/**
 * Each tool's input schema with its fast path (`withFastPath`, issue 15 item 1):
 * a valid input is answered without zod's generic walk, anything else by the schema.
 */
const INPUTS = {
  tradescript_get_context: withFastPath(getContextTool.input),
  tradescript_list_controls: withFastPath(listControlsTool.input),
  tradescript_call: withFastPath(callTool.input),
  tradescript_batch: withFastPath(batchTool.input),
  tradescript_subscribe: withFastPath(subscribeTool.input),
  tradescript_snapshot: withFastPath(snapshotTool.input),
} as const;

/**
 * Valid arguments are taken from a plain `safeParse`; only a failure is parsed
 * again with the input reported, for the diagnostics: zod copies the context
 * of a parse given one (~2 µs a call, issue 15 item 1).
 */
function parseInput<S extends z.core.$ZodType>(schema: S, args: unknown): ParseResult<z.core.output<S>> {
  const parsed = z.safeParse(schema, args);
  return parsed.success ? { ok: true, data: parsed.data } : parseWithDiagnostics(schema, args);
}

function parseSchema(name: ToolName, args: unknown): Parsed {
  const wrap = <I>(result: ParseResult<I>, tag: (input: I) => ParsedInput): Parsed =>
    result.ok ? { ok: true, parsed: tag(result.data) } : result;
  switch (name) {
    case 'tradescript_get_context':
      return wrap(parseInput(INPUTS[name], args), (input) => ({ name, input }));
    case 'tradescript_list_controls':
      return wrap(parseInput(INPUTS[name], args), (input) => ({ name, input }));
    case 'tradescript_call':
      return wrap(parseInput(INPUTS[name], args), (input) => ({ name, input }));
    case 'tradescript_batch':
      return wrap(parseInput(INPUTS[name], args), (input) => ({ name, input }));
    case 'tradescript_subscribe':
      return wrap(parseInput(INPUTS[name], args), (input) => ({ name, input }));
    case 'tradescript_snapshot':
      return wrap(parseInput(INPUTS[name], args), (input) => ({ name, input }));
  }
}

/** The first count limit the validated input breaks, or null. */
function countLimitBreach(parsed: ParsedInput, limits: Limits): ErrorObject | null {
  const argsBreach = (args: readonly unknown[]) =>
    args.length > limits.callArgs ? limitExceeded('callArgs', limits.callArgs) : null;
  switch (parsed.name) {
    case 'tradescript_call':
      return argsBreach(parsed.input.args);
    case 'tradescript_batch': {
      if (parsed.input.calls.length > limits.batchCalls) {
        return limitExceeded('batchCalls', limits.batchCalls);
      }
      for (const call of parsed.input.calls) {
        const breach = argsBreach(call.args);
        if (breach) return breach;
      }
      return null;
    }
    case 'tradescript_subscribe':
      return subscribeBreach(parsed.input, limits);
    default:
      return null;
  }
}

function subscribeBreach(input: SubscribeInput, limits: Limits): ErrorObject | null {
  if (input.action === 'start' && input.bindings.length > limits.bindingsPerSubscription) {
    return limitExceeded('bindingsPerSubscription', limits.bindingsPerSubscription);
  }
  if (input.action === 'poll' && input.limit !== undefined && input.limit > limits.eventsPerPoll) {
    return limitExceeded('eventsPerPoll', limits.eventsPerPoll);
  }
  return null;
}

/**
 * The request's JSON size, or null when it is nested too deeply for the
 * engine's own serializer (JSON.parse takes any depth, JSON.stringify does
 * not): such a value breaks the depth limit, which the shape check reports.
 */
function requestSize(args: unknown): number | null {
  try {
    return jsonByteLength(args);
  } catch {
    return null;
  }
}

/** Runs every check on a served tool's raw arguments. */
export function checkInput(name: ToolName, args: unknown, limits: Limits): CheckedInput {
  const size = requestSize(args);
  if (size !== null && size > limits.requestBytes) {
    return {
      ok: false,
      error: makeError(
        'request_too_large',
        `The request JSON is over ${limits.requestBytes} bytes: send less, e.g. split a batch or shorten arguments.`,
      ),
    };
  }
  const shape = checkJsonShape(args, limits);
  if (shape) {
    const step = shape.limit === 'jsonDepth' ? 'nest the arguments less deeply.' : 'shorten the longest string.';
    return { ok: false, error: limitExceeded(shape.limit, shape.max, step) };
  }
  const parsed = parseFor(name, args);
  if (!parsed.ok) {
    return {
      ok: false,
      error: makeError(
        'invalid_input',
        'Tool arguments are invalid: fix the fields in validation_errors and call again.',
        {
          validation_errors: parsed.issues,
        },
      ),
    };
  }
  const breach = countLimitBreach(parsed.parsed, limits);
  return breach ? { ok: false, error: breach } : parsed;
}

/**
 * The caller's correlation id (only `tradescript_call` has one at top level),
 * read from raw arguments only when it is a valid safe identifier, so even a
 * rejected request can echo it without echoing input.
 */
export function echoableRequestId(name: ToolName, args: unknown): string | undefined {
  if (name !== 'tradescript_call' || args === null || typeof args !== 'object') return undefined;
  const raw = (args as Record<string, unknown>)['requestId'];
  // Most calls carry none: a failing parse of `undefined` per call was measurable (issue 15 item 1).
  if (raw === undefined) return undefined;
  const result = RequestIdSchema.safeParse(raw);
  return result.success ? result.data : undefined;
}
