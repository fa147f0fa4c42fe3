/**
 * A channel's public descriptor (SPEC §7), derived once per declaration:
 * `optionsContract` and `eventContract`, each a TS-style signature, a bounded
 * portable JSON Schema and the declaration's checked example.
 */
import { KB, checkJsonShape, jsonByteLength, type ChannelDescriptor, type Contract } from '../../protocol/index.js';
import { portableJsonSchema, typeText } from '../declare/declare.js';
import type { ChannelDeclaration } from './declareChannel.js';

/** Most bytes of one contract's JSON Schema. */
export const CHANNEL_SCHEMA_MAX_BYTES = 16 * KB;
/** Deepest nesting of one contract's JSON Schema. */
export const CHANNEL_SCHEMA_MAX_DEPTH = 16;

const cache = new WeakMap<ChannelDeclaration, ChannelDescriptor>();

function boundedSchema(id: string, what: string, schema: Record<string, unknown>): Record<string, unknown> {
  const breach = checkJsonShape(schema, { jsonDepth: CHANNEL_SCHEMA_MAX_DEPTH, stringLength: 4 * KB });
  if (breach || jsonByteLength(schema) > CHANNEL_SCHEMA_MAX_BYTES) {
    throw new Error(`${id}: the ${what} JSON Schema is too large to publish; simplify the schema.`);
  }
  return schema;
}

function json(value: unknown): unknown {
  return JSON.parse(JSON.stringify(value)) as unknown;
}

function derive(channel: ChannelDeclaration): ChannelDescriptor {
  const id = channel.channelId;
  const options = boundedSchema(id, 'options', portableJsonSchema(channel.options, 'input'));
  const event = boundedSchema(id, 'event', portableJsonSchema(channel.event, 'output'));
  const optionsContract: Contract = {
    signature: `options${channel.optionsRequired ? '' : '?'}: ${typeText(options)}`,
    schema: options,
    example: json(channel.optionsExample),
    required: channel.optionsRequired,
  };
  const eventContract: Contract = {
    signature: `event: ${typeText(event)}`,
    schema: event,
    example: json(channel.eventExample),
  };
  return { channelId: id, description: channel.description, optionsContract, eventContract };
}

/** The descriptor of a declared channel, derived once; throws when a schema is too large to publish. */
export function describeChannel(channel: ChannelDeclaration): ChannelDescriptor {
  let descriptor = cache.get(channel);
  if (!descriptor) {
    descriptor = derive(channel);
    cache.set(channel, descriptor);
  }
  return descriptor;
}
