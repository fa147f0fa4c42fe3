/**
 * Every wire shape of TradeScript MCP, as zod schemas with derived types.
 * This folder imports nothing else of ours; every other folder may import it.
 * Any new export here becomes public API.
 */
export * from './channels.js';
export * from './descriptors.js';
export * from './diagnostics.js';
export * from './envelope.js';
export * from './errors.js';
export * from './wire/callContexts.js';
export * from './wire/frameBatch.js';
export * from './wire/frameReading.js';
export * from './jsonLimits.js';
export * from './jsonSchema.js';
export * from './limits.js';
export * from './policy.js';
export * from './receipt.js';
export * from './record.js';
export * from './wire/relay.js';
export * from './resources.js';
export * from './resultFit.js';
export * from './target.js';
export * from './tools/index.js';
