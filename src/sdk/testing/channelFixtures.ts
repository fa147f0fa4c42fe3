/**
 * Channel test helpers: a source that counts every subscribe and unsubscribe
 * and keeps each emit (even after its unsubscribe, to prove the SDK stops
 * delivery itself), a recording sink, and binding requests.
 */
import { z } from 'zod';
import type { Target } from '../../protocol/index.js';
import { declareChannel, type ChannelDeclaration, type ChannelSource } from '../channels/declareChannel.js';
import type { BindingRequest, BindingSinkEvent } from '../types.js';

/** A source that counts its lifecycle and can emit on every binding it was given. */
export class CountingSource implements ChannelSource {
  subscribeCalls = 0;
  unsubscribeCalls = 0;
  readonly options: unknown[] = [];
  private readonly emitters: Array<(event: unknown) => void> = [];

  /** Accepts any channel's typed emit: the tests emit raw values the SDK must validate. */
  subscribe(options: unknown, emit: (event: never) => void): () => void {
    this.subscribeCalls += 1;
    this.options.push(options);
    this.emitters.push(emit as (event: unknown) => void);
    return () => {
      this.unsubscribeCalls += 1;
    };
  }

  /** Emits one raw event on every binding ever subscribed. */
  emit(event: unknown): void {
    for (const emit of this.emitters) emit(event);
  }
}

/** A sink that records what it receives. */
export function recordingSink(): { events: BindingSinkEvent[]; sink: (event: BindingSinkEvent) => void } {
  const events: BindingSinkEvent[] = [];
  return { events, sink: (event) => events.push(event) };
}

/** A custom channel: chart drawings with a required options object. */
export const drawingsChannel: ChannelDeclaration = declareChannel({
  channelId: 'chart.drawings',
  description: 'Drawings added to or removed from this chart.',
  options: z
    .object({
      kinds: z
        .array(z.enum(['line', 'box']))
        .min(1)
        .max(4),
    })
    .strict(),
  optionsRequired: true,
  event: z
    .object({
      action: z.enum(['added', 'removed']),
      id: z.string().max(64),
      label: z.string().max(100_000),
      tags: z.array(z.string()).max(1000).optional(),
    })
    .strict(),
  optionsExample: { kinds: ['line'] },
  eventExample: { action: 'added', id: 'd1', label: 'Support' },
  targetScopes: ['chart'],
});

let bindingCounter = 0;

/** A binding request with test defaults. */
export function binding(channelId: string, target: Target, extra: Partial<BindingRequest> = {}): BindingRequest {
  bindingCounter += 1;
  return {
    sessionId: 's1',
    subscriptionId: 'sub-1',
    bindingId: `b${bindingCounter}`,
    channelId,
    target,
    options: undefined,
    attachment: { attachmentId: 'a1', namespace: 'ns1', clientName: 'test-client' },
    bindingIndex: 0,
    ...extra,
  };
}
