/**
 * An in-memory broker for the SDK's tests: it counts every request it
 * receives and can be told to fail in each way SPEC §4/§5 names.
 */
import type { z } from 'zod';
import { controlFailure, type FailureInfo, type FailureKind } from '../outcomes/failures.js';
import type { OrderSchema } from './fixtures.js';

/** How the fake broker answers its next request. */
export type BrokerMode =
  | { kind: 'ok' }
  | { kind: 'fail'; failure: FailureKind; info?: FailureInfo }
  /** The order is placed, then the answer is lost. */
  | { kind: 'lost-after-acting' }
  | { kind: 'throw' }
  | { kind: 'malformed' }
  | { kind: 'hang' };

type Order = z.infer<typeof OrderSchema> & { orderId: string };

/** An in-memory broker that counts every request it receives. */
export class FakeBroker {
  readonly orders = new Map<string, Order>();
  placeCalls = 0;
  listCalls = 0;
  /** The options object each placement received (to see the merged operation id). */
  readonly placedOptions: unknown[] = [];
  private readonly modes: BrokerMode[] = [];

  /** Queues answers for the next requests (then `ok`). */
  next(...modes: BrokerMode[]): void {
    this.modes.push(...modes);
  }

  private mode(): BrokerMode {
    return this.modes.shift() ?? { kind: 'ok' };
  }

  async list(): Promise<Order[]> {
    this.listCalls += 1;
    const mode = this.mode();
    if (mode.kind === 'fail') throw controlFailure(mode.failure, mode.info);
    if (mode.kind === 'throw') throw new Error('secret-internal-detail 42');
    return [...this.orders.values()];
  }

  async place(order: z.infer<typeof OrderSchema>, options: unknown): Promise<unknown> {
    this.placeCalls += 1;
    this.placedOptions.push(options);
    const mode = this.mode();
    if (mode.kind === 'hang') return new Promise(() => undefined);
    if (mode.kind === 'fail') throw controlFailure(mode.failure, mode.info);
    if (mode.kind === 'throw') throw new Error('secret-internal-detail 42');
    const orderId = `o${this.orders.size + 1}`;
    this.orders.set(order.clientOrderId, { ...order, orderId });
    if (mode.kind === 'lost-after-acting') throw controlFailure('transport-error');
    if (mode.kind === 'malformed') return { orderId, weird: true };
    return { orderId, clientOrderId: order.clientOrderId, status: 'accepted' };
  }
}
