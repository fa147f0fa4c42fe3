/**
 * `diagnostics.ticks`: synthetic events at a chosen rate, for measuring how
 * many events per second the page can push into a polled subscription
 * (SPEC §12) and for forcing ring-buffer evictions in tests. Provided on the
 * session target only when the page is opened with `?diagnostics=1`.
 *
 * Each binding emits in batches on a timer: every tick it catches up to
 * `ratePerSecond × elapsed`, at most {@link MAX_BATCH_SECONDS} worth at once,
 * so a slow page lowers the achieved rate instead of freezing.
 */
import { z } from 'zod';
import { declareChannel, type ChannelSource } from '../../../src/sdk/index.js';

/** Highest rate a binding may ask for. */
export const MAX_RATE = 200_000;
/** Largest padding a binding may ask for; events over the SDK's 16 KB cap drop as oversized. */
export const MAX_PAYLOAD_BYTES = 16_384;
/** How often a binding emits its batch. */
const TICK_MS = 10;
/** A batch never holds more than this many seconds of events (a late timer does not flood). */
const MAX_BATCH_SECONDS = 0.05;
/** Padding travels in pieces: the SDK bounds each string to 1,000 characters. */
const PAD_CHUNK = 1000;

const DiagnosticsOptionsSchema = z
  .object({
    ratePerSecond: z.number().int().min(1).max(MAX_RATE).describe('Events per second to emit.'),
    payloadBytes: z.number().int().min(0).max(MAX_PAYLOAD_BYTES).optional().describe('Padding per event.'),
    maxEvents: z.number().int().min(1).optional().describe('Stop after this many events (default: until stopped).'),
  })
  .strict();

const DiagnosticsEventSchema = z
  .object({
    n: z.number().int().positive().describe('1 for the binding’s first event, then +1.'),
    at: z.number().describe('Epoch milliseconds of the batch.'),
    pad: z.array(z.string().max(PAD_CHUNK)).max(20).optional(),
  })
  .strict();

/** One synthetic event. */
export type DiagnosticsEvent = z.infer<typeof DiagnosticsEventSchema>;

/** The `diagnostics.ticks` channel. */
export const diagnosticsTicksChannel = declareChannel({
  channelId: 'diagnostics.ticks',
  description: 'Synthetic numbered events at ratePerSecond, for load tests of the subscription path. Not market data.',
  options: DiagnosticsOptionsSchema,
  optionsRequired: true,
  event: DiagnosticsEventSchema,
  optionsExample: { ratePerSecond: 1000, payloadBytes: 64 },
  eventExample: { n: 1, at: 1767348000000 },
  targetScopes: ['session'],
});

/** The padding for `bytes`: strings of at most {@link PAD_CHUNK} characters. */
function padding(bytes: number): string[] | undefined {
  if (bytes <= 0) return undefined;
  const chunks: string[] = [];
  for (let left = bytes; left > 0; left -= PAD_CHUNK) chunks.push('x'.repeat(Math.min(left, PAD_CHUNK)));
  return chunks;
}

/** The synthetic source and its exact count of what it emitted. */
export class DiagnosticTicks {
  private total = 0;
  private active = 0;

  constructor(private readonly now: () => number = () => performance.now()) {}

  /** Events handed to the SDK since the page loaded, over every binding. */
  emitted(): number {
    return this.total;
  }

  /** Bindings emitting now. */
  activeBindings(): number {
    return this.active;
  }

  /** The channel's source. */
  source(): ChannelSource<typeof diagnosticsTicksChannel> {
    return {
      subscribe: (options, emit) => {
        if (!options) throw new Error('diagnostics.ticks needs options.');
        return this.start(options, emit);
      },
    };
  }

  private start(
    options: z.output<typeof DiagnosticsOptionsSchema>,
    emit: (event: DiagnosticsEvent) => void,
  ): () => void {
    const { ratePerSecond: rate, maxEvents = Number.POSITIVE_INFINITY } = options;
    const pad = padding(options.payloadBytes ?? 0);
    const startedAt = this.now();
    const batchMax = Math.max(1, Math.ceil(rate * MAX_BATCH_SECONDS));
    let sent = 0;
    let owed = 0;
    let lastAt = startedAt;
    const tick = (): void => {
      const at = this.now();
      owed = Math.min(owed + ((at - lastAt) * rate) / 1000, batchMax);
      lastAt = at;
      const count = Math.min(Math.floor(owed), maxEvents - sent);
      owed -= count;
      const stamp = Date.now();
      for (let i = 0; i < count; i += 1) {
        sent += 1;
        this.total += 1;
        emit(pad ? { n: sent, at: stamp, pad } : { n: sent, at: stamp });
      }
      if (sent >= maxEvents) stop();
    };
    const timer = setInterval(tick, TICK_MS);
    this.active += 1;
    let stopped = false;
    const stop = (): void => {
      if (stopped) return;
      stopped = true;
      clearInterval(timer);
      this.active -= 1;
    };
    return stop;
  }
}
