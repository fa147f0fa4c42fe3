/**
 * How a terminal declares a subscription channel (SPEC §7): zod schemas for
 * its options and its event, a checked example of each, and the target scopes
 * it can be provided on. Descriptors and their JSON Schemas are derived from
 * the declaration (describeChannel.ts), never written by hand.
 */
import * as z from 'zod/mini';
import { canonicalJson, type TargetScope } from '../../protocol/index.js';
import { describeChannel } from './describeChannel.js';

/** A channel's declaration. */
export interface ChannelDeclaration<
  O extends z.core.$ZodType = z.core.$ZodType,
  E extends z.core.$ZodType = z.core.$ZodType,
> {
  /** Dotted camelCase words, e.g. `data.quotes`. */
  readonly channelId: string;
  /** For a model: what the events are and when to watch them. */
  readonly description: string;
  /** The options a binding passes (validated before the source is touched). */
  readonly options: O;
  /** Whether a binding must pass options; when false, omitted options reach the source as `undefined`. */
  readonly optionsRequired: boolean;
  /** The projected event: every raw event is parsed with it before it leaves the page. */
  readonly event: E;
  /** A valid options value, shown in `optionsContract.example`. */
  readonly optionsExample: z.input<O>;
  /** A valid event, shown in `eventContract.example`. */
  readonly eventExample: z.input<E>;
  /** Target scopes the channel may be provided on. */
  readonly targetScopes: readonly TargetScope[];
}

/** The options a channel's source receives. */
export type ChannelOptionsOf<C extends ChannelDeclaration> =
  C extends ChannelDeclaration<infer O, z.core.$ZodType> ? z.output<O> : never;

/** The raw event a channel's source emits (validated and projected by the SDK). */
export type ChannelEventOf<C extends ChannelDeclaration> =
  C extends ChannelDeclaration<z.core.$ZodType, infer E> ? z.input<E> : never;

/**
 * A host's source for one channel on one target. `subscribe` starts
 * delivering raw events to `emit` and returns the function that stops it; the
 * SDK calls that function exactly once per binding.
 */
export interface ChannelSource<C extends ChannelDeclaration = ChannelDeclaration> {
  subscribe(options: ChannelOptionsOf<C> | undefined, emit: (event: ChannelEventOf<C>) => void): () => void;
}

const CHANNEL_ID = /^[a-z][A-Za-z0-9]*(\.[a-z][A-Za-z0-9]*)+$/;
/** Longest channel id. */
export const CHANNEL_ID_MAX = 128;

/** True when a value survives a JSON round trip unchanged (no Date, Map, class instance…). */
function isJson(value: unknown): boolean {
  try {
    const text = JSON.stringify(value);
    return text !== undefined && canonicalJson(JSON.parse(text)) === canonicalJson(value);
  } catch {
    return false;
  }
}

function checkExample(id: string, what: string, schema: z.core.$ZodType, example: unknown): void {
  if (!isJson(example)) throw new Error(`${id}: the ${what} example must be plain JSON.`);
  if (!z.safeParse(schema, example).success) throw new Error(`${id}: the ${what} example does not match its schema.`);
}

/**
 * Declares a channel. Refuses an id that is not dotted camelCase words, an
 * empty scope list, an example that is not plain JSON matching its own
 * schema, and a schema whose JSON Schema is too large to publish.
 */
export function declareChannel<O extends z.core.$ZodType, E extends z.core.$ZodType>(
  declaration: ChannelDeclaration<O, E>,
): ChannelDeclaration<O, E> {
  const id = declaration.channelId;
  if (!CHANNEL_ID.test(id) || id.length > CHANNEL_ID_MAX) {
    throw new Error(
      `Channel id "${id}" must be dotted camelCase words (e.g. "data.quotes"), at most ${CHANNEL_ID_MAX} characters.`,
    );
  }
  if (declaration.targetScopes.length === 0) throw new Error(`${id}: declare at least one target scope.`);
  checkExample(id, 'options', declaration.options, declaration.optionsExample);
  checkExample(id, 'event', declaration.event, declaration.eventExample);
  describeChannel(declaration);
  return declaration;
}
