/**
 * A small terminal for the SDK's tests: a chart controller with viewport and
 * drawing revisions, and a financial orders controller backed by an in-memory
 * broker that can fail in each way SPEC §4/§5 names.
 */
import { z } from 'zod';
import type { AdapterMaximum, Operation, RelayCall, RelayLimits, Target } from '../../protocol/index.js';
import { DEFAULT_LIMITS, relayLimitsOf } from '../../protocol/index.js';
import { arg, control, declareController } from '../declare/declare.js';
import { controlFailure } from '../outcomes/failures.js';
import { createTerminalHost } from '../host.js';
import { MemoryLedger } from '../ledger/memoryLedger.js';
import { FakeBroker } from './fakeBroker.js';

export { FakeBroker, type BrokerMode } from './fakeBroker.js';
import type { ControllerImpl, SessionRequest, TerminalHost, TerminalHostOptions } from '../types.js';

const RangeSchema = z.object({ from: z.number().int(), to: z.number().int() }).strict();

/** A chart controller: viewport and drawings. */
export const chartController = declareController({
  name: 'chart',
  targetScopes: ['chart'],
  revisionDomains: ['viewport', 'drawings'],
  controls: {
    getVisibleRange: control({
      description: 'Read the visible range.',
      args: [],
      result: RangeSchema,
      accessClass: 'read',
      family: 'chart.viewport',
      permission: 'chart.read',
      risk: 'read',
      mutation: false,
      revisionDomains: ['viewport'],
    }),
    setVisibleRange: control({
      description: 'Set the visible range.',
      args: [arg('range', RangeSchema)],
      result: RangeSchema,
      accessClass: 'write',
      family: 'chart.viewport',
      permission: 'chart.write',
      risk: 'write',
      mutation: true,
      revisionDomains: ['viewport'],
    }),
    addDrawing: control({
      description: 'Add a drawing.',
      args: [arg('drawing', z.object({ kind: z.enum(['line', 'box']), label: z.string().max(64) }).strict())],
      result: z.object({ id: z.string() }).strict(),
      accessClass: 'write',
      family: 'chart.drawings',
      permission: 'chart.write',
      risk: 'write',
      mutation: true,
      revisionDomains: ['drawings'],
    }),
    exportBars: control({
      description: 'Export bars.',
      args: [arg('count', z.number().int().min(0).max(100_000))],
      result: z.array(z.object({ t: z.number(), note: z.string() })),
      accessClass: 'read',
      family: 'chart.data',
      permission: 'chart.read',
      risk: 'read',
      mutation: false,
    }),
    annotate: control({
      description: 'Annotate bars (a mutation with a result of any size).',
      args: [arg('count', z.number().int().min(0).max(100_000))],
      result: z.array(z.object({ t: z.number(), note: z.string() })),
      accessClass: 'write',
      family: 'chart.drawings',
      permission: 'chart.write',
      risk: 'write',
      mutation: true,
    }),
  },
});

/** A placement request. */
export const OrderSchema = z
  .object({
    accountId: z.string(),
    symbol: z.string(),
    side: z.enum(['buy', 'sell']),
    quantity: z.string(),
    clientOrderId: z.string(),
  })
  .strict();
const OrderOptionsSchema = z
  .object({ note: z.string().max(64).optional() })
  .strict()
  .optional();
/** A placement acknowledgement. */
export const AckSchema = z
  .object({ orderId: z.string(), clientOrderId: z.string(), status: z.literal('accepted') })
  .strict();
const AlertResultSchema = z
  .object({ deleted: z.array(z.number()), failed: z.array(z.number()), message: z.string() })
  .strict();

/** A financial orders controller on the session target. */
export const ordersController = declareController({
  name: 'orders',
  targetScopes: ['session'],
  revisionDomains: ['orders'],
  controls: {
    listOrders: control({
      description: 'List orders.',
      args: [],
      result: z.array(OrderSchema.extend({ orderId: z.string() })),
      accessClass: 'read',
      family: 'orders.read',
      permission: 'orders.read',
      risk: 'read',
      mutation: false,
    }),
    placeOrder: control({
      description: 'Place an order.',
      args: [arg('order', OrderSchema), arg('options', OrderOptionsSchema)],
      result: AckSchema,
      accessClass: 'trade',
      family: 'orders.place',
      permission: 'orders.trade',
      risk: 'financial',
      mutation: true,
      operationOptionsIndex: 1,
    }),
    cancelOrder: control({
      description: 'Cancel an order.',
      args: [arg('request', z.object({ accountId: z.string(), orderId: z.string() }).strict())],
      result: z.object({ orderId: z.string(), status: z.literal('cancel-requested') }).strict(),
      accessClass: 'trade',
      family: 'orders.cancel',
      permission: 'orders.trade',
      risk: 'financial',
      mutation: true,
      revisionDomains: ['orders'],
    }),
    deleteAlerts: control({
      description: 'Delete alerts (cannot be undone).',
      args: [arg('alertIds', z.array(z.number().int().positive()).min(1))],
      result: AlertResultSchema,
      accessClass: 'trade',
      family: 'alerts.delete',
      permission: 'alerts.trade',
      risk: 'write',
      mutation: true,
    }),
  },
});

/** Chart implementation over a plain state object. */
export function chartImpl(
  state = { from: 0, to: 100 },
  drawings: string[] = [],
): ControllerImpl<typeof chartController.controls> {
  const bars = (count: number) => Array.from({ length: count }, (_, t) => ({ t, note: `bar ${t} `.repeat(8) }));
  return {
    getVisibleRange: () => ({ ...state }),
    setVisibleRange: (_ctx, range) => Object.assign(state, range),
    addDrawing: (_ctx, drawing) => {
      drawings.push(drawing.label);
      return { id: `d${drawings.length}` };
    },
    exportBars: (_ctx, count) => bars(count),
    annotate: (_ctx, count) => bars(count),
  };
}

/** Orders implementation over a fake broker. */
export function ordersImpl(broker: FakeBroker): ControllerImpl<typeof ordersController.controls> {
  return {
    listOrders: () => broker.list(),
    placeOrder: (_ctx, order, options) => broker.place(order, options) as Promise<z.input<typeof AckSchema>>,
    cancelOrder: (_ctx, request) => ({ orderId: request.orderId, status: 'cancel-requested' }),
    deleteAlerts: (_ctx, ids) => {
      const failed = ids.filter((id) => id % 2 === 0);
      if (failed.length > 0) {
        throw controlFailure('broker-rejection', {
          partial: true,
          brokerMessage: 'Some alerts could not be deleted.',
          result: { deleted: ids.filter((id) => id % 2 === 1), failed, message: 'partial   deletion' },
        });
      }
      return { deleted: ids, failed: [], message: 'ok' };
    },
  };
}

/** The chart target used by the tests. */
export const CHART: Target = { scope: 'chart', chartId: 'c1' };
/** The session target. */
export const SESSION: Target = { scope: 'session' };

/** The relay limits at their defaults. */
export function defaultLimits(overrides: Partial<RelayLimits> = {}): RelayLimits {
  const limits = relayLimitsOf(DEFAULT_LIMITS);
  return { ...limits, ...overrides };
}

/** An adapter maximum with trading enabled. */
export const TRADING: AdapterMaximum = { maxAccess: 'trade', allowControls: null };

let requestCounter = 0;

/** A request as the bridge runtime would hand it over. */
export function request(op: SessionRequest['op'], overrides: Partial<SessionRequest> = {}): SessionRequest {
  requestCounter += 1;
  return {
    id: `r${requestCounter}`,
    sessionId: 's1',
    attachment: { attachmentId: 'a1', namespace: 'ns1', clientName: 'test-client' },
    adapter: TRADING,
    limits: defaultLimits(),
    deadlineMs: 30_000,
    op,
    ...overrides,
  };
}

let operationCounter = 0;

/** One call; without `operationId` it gets a server-style generated one. */
export function call(
  controlId: string,
  target: Target,
  args: unknown[],
  extra: Partial<RelayCall> = {},
): Extract<Operation, { kind: 'call' }> {
  operationCounter += 1;
  const generated = { operationId: `gen-${operationCounter}`, callerOperationId: false };
  return { kind: 'call', call: { target, controlId, args, ...generated, ...extra } };
}

/** A caller-owned operation id. */
export function owned(operationId: string): Pick<RelayCall, 'operationId' | 'callerOperationId'> {
  return { operationId, callerOperationId: true };
}

/** A terminal with a chart (c1) and the orders controller, grant `trade`. */
export function terminal(options: Partial<TerminalHostOptions> = {}) {
  const broker = new FakeBroker();
  const ledger = new MemoryLedger();
  const host: TerminalHost = createTerminalHost({
    environment: 'paper',
    grant: 'trade',
    ledger,
    sleep: () => Promise.resolve(),
    ...options,
  });
  host.registerTarget(CHART, { label: 'BTCUSDT · 1m', state: () => ({ symbol: 'BTCUSDT' }) });
  const chartState = { from: 0, to: 100 };
  const chart = host.mount(CHART, chartController, chartImpl(chartState), { state: () => ({ ...chartState }) });
  const orders = host.mount(SESSION, ordersController, ordersImpl(broker), {
    reconcile: async ({ args }) => {
      const order = args[0] as { clientOrderId: string };
      const found = broker.orders.get(order.clientOrderId);
      return found
        ? {
            outcome: 'happened',
            result: { orderId: found.orderId, clientOrderId: found.clientOrderId, status: 'accepted' },
          }
        : { outcome: 'not-happened' };
    },
  });
  return { host, broker, ledger, chart, orders, chartState };
}

/** A well-formed order. */
export function order(clientOrderId = 'CO1') {
  return { accountId: 'ACC1', symbol: 'BTCUSDT', side: 'buy', quantity: '0.5', clientOrderId };
}
