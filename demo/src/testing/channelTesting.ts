/**
 * Test helpers for the demo's channels: a real host, binding requests as the
 * bridge runtime sends them, and a sink that records what arrives.
 */
import type { Target } from '../../../src/protocol/index.js';
import {
  createTerminalHost,
  MemoryLedger,
  type BindingSinkEvent,
  type ChannelDeclaration,
  type TerminalHost,
} from '../../../src/sdk/index.js';

/** A paper host with the given custom channels declared, and a memory ledger. */
export function testHost(channels: readonly ChannelDeclaration[] = []): TerminalHost {
  return createTerminalHost({ environment: 'paper', grant: 'write', ledger: new MemoryLedger(), channels });
}

let bindings = 0;

/** Starts one binding and returns its recorded payloads and a stop function. */
export async function bind(host: TerminalHost, target: Target, channelId: string, options?: unknown) {
  bindings += 1;
  const subscriptionId = `sub-${bindings}`;
  const bindingId = `b-${bindings}`;
  const events: BindingSinkEvent[] = [];
  const started = await host.startBinding(
    {
      sessionId: 's1',
      subscriptionId,
      bindingId,
      channelId,
      target,
      options,
      attachment: { attachmentId: 'a1', namespace: 'ns1', clientName: 'vitest' },
    },
    (event) => events.push(event),
  );
  const payloads = (): unknown[] => events.flatMap((e) => ('payload' in e ? [e.payload] : []));
  return { started, events, payloads, stop: () => host.stopBinding(subscriptionId, bindingId) };
}
