import { AjvJsonSchemaValidator } from '@modelcontextprotocol/client/validators/ajv';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { ChannelDescriptorSchema, jsonByteLength } from '../../protocol/index.js';
import { drawingsChannel } from '../testing/channelFixtures.js';
import { BUILTIN_CHANNEL_DECLARATIONS } from './builtins.js';
import { declareChannel, type ChannelDeclaration } from './declareChannel.js';
import { CHANNEL_SCHEMA_MAX_BYTES, describeChannel } from './describeChannel.js';

const validator = new AjvJsonSchemaValidator();

function check(schema: Record<string, unknown>, value: unknown): boolean {
  return validator.getValidator(schema)(value).valid;
}

const channels: ChannelDeclaration[] = [...BUILTIN_CHANNEL_DECLARATIONS, drawingsChannel];

const base = {
  channelId: 'test.channel',
  description: 'A test channel.',
  options: z.object({ n: z.number().int() }).strict(),
  optionsRequired: true,
  event: z.object({ v: z.string() }).strict(),
  optionsExample: { n: 1 },
  eventExample: { v: 'x' },
  targetScopes: ['session'] as const,
};

describe('SPEC §7 channel contracts', () => {
  it.each(channels.map((c) => [c.channelId, c] as const))(
    '%s: each example satisfies its own published JSON Schema',
    (_id, channel) => {
      const descriptor = ChannelDescriptorSchema.parse(describeChannel(channel));
      expect(check(descriptor.optionsContract.schema, descriptor.optionsContract.example)).toBe(true);
      expect(check(descriptor.eventContract.schema, descriptor.eventContract.example)).toBe(true);
      expect(jsonByteLength(descriptor.optionsContract.schema)).toBeLessThanOrEqual(CHANNEL_SCHEMA_MAX_BYTES);
      expect(jsonByteLength(descriptor.eventContract.schema)).toBeLessThanOrEqual(CHANNEL_SCHEMA_MAX_BYTES);
      expect(descriptor.optionsContract.required).toBe(channel.optionsRequired);
    },
  );

  it('the published schemas reject what the zod schemas reject (strict objects, decimal strings)', () => {
    const quotes = describeChannel(BUILTIN_CHANNEL_DECLARATIONS[0]!);
    expect(check(quotes.optionsContract.schema, { symbols: [] })).toBe(false);
    expect(check(quotes.optionsContract.schema, { symbols: ['A'], extra: 1 })).toBe(false);
    const event = quotes.eventContract.example as Record<string, unknown>;
    expect(check(quotes.eventContract.schema, { ...event, bid: 1.5 })).toBe(false);
    expect(check(quotes.eventContract.schema, { ...event, bid: '1.2.3' })).toBe(false);
  });

  it('signatures are short TS-style types; optional options are marked', () => {
    const [quotes, trading] = BUILTIN_CHANNEL_DECLARATIONS.map(describeChannel);
    expect(quotes?.optionsContract.signature).toBe('options: { symbols: string[] }');
    expect(trading?.optionsContract.signature).toBe('options?: { accountIds?: string[] }');
    expect(quotes?.eventContract.signature).toBe(
      'event: { symbol: string; bid: string; ask: string; last: string; time: string }',
    );
  });

  it('declareChannel refuses a malformed id, no scopes, and an example that is not valid plain JSON', () => {
    expect(() => declareChannel({ ...base, channelId: 'Quotes' })).toThrow(/dotted camelCase/);
    expect(() => declareChannel({ ...base, channelId: 'quotes' })).toThrow(/dotted camelCase/);
    expect(() => declareChannel({ ...base, targetScopes: [] })).toThrow(/target scope/);
    expect(() => declareChannel({ ...base, optionsExample: { n: 1.5 } })).toThrow(/options example/);
    expect(() => declareChannel({ ...base, eventExample: { v: 'x', w: 1 } as never })).toThrow(/event example/);
    const dated = { ...base, event: z.object({ at: z.date() }), eventExample: { at: new Date(0) } };
    expect(() => declareChannel(dated)).toThrow(/plain JSON/);
  });

  it('declareChannel refuses a schema too large to publish', () => {
    const shape = Object.fromEntries(
      Array.from({ length: 400 }, (_, i) => [`field${i}`, z.string().describe('x'.repeat(40))]),
    );
    const event = z.object(shape).partial().strict();
    expect(() => declareChannel({ ...base, event, eventExample: {} })).toThrow(/too large/);
  });
});
