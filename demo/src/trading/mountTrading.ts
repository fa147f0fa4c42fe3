/**
 * Puts the paper broker on the host SDK: the orders, positions, risk, alerts
 * and fx controllers on the session target and the depth ladder on its
 * widget, with reconciliation for every financial control, context state,
 * and revision counters that follow the broker (fills, triggers and the
 * person's own actions included).
 */
import { sinceBrokerStart } from './brokerEpoch.js';
import type { RenderSource, TerminalHost } from '../../../src/sdk/index.js';
import type { ChangeKind } from '../broker/events.js';
import type { PaperBroker } from '../broker/paperBroker.js';
import { alertsController, alertsControls, alertsReconcile } from '../alerts/alertsController.js';
import {
  depthLadderControls,
  depthLadderController,
  depthLadderReconcile,
  LADDER_WIDGET_ID,
} from '../ladder/depthLadderController.js';
import { fxController, fxControls, fxReconcile } from '../fx/fxController.js';
import type { LadderModel } from '../ladder/ladderModel.js';
import { ordersController } from '../orders/ordersController.js';
import { ordersControls, ordersReconcile } from '../orders/ordersControls.js';
import { positionsController, positionsControls } from '../orders/positionsController.js';
import { RevisionRouter } from './revisionRouter.js';
import { riskController, riskControls, riskReconcile } from '../risk/riskController.js';
import { tradingState } from './tradingState.js';

/** Every trading controller, for a host's up-front catalog. */
export const TRADING_CONTROLLERS = [
  ordersController,
  positionsController,
  riskController,
  alertsController,
  fxController,
  depthLadderController,
] as const;

/** The ladder widget's target. */
export const LADDER_TARGET = { scope: 'widget', widgetId: LADDER_WIDGET_ID } as const;
const SESSION = { scope: 'session' } as const;

/** What mounting returns: the routers by controller, and a way to take it all down. */
export interface MountedTrading {
  routers: Readonly<Record<'orders' | 'positions' | 'risk' | 'alerts' | 'fx' | 'depthLadder', RevisionRouter>>;
  unmount(): void;
}

/** Mounts the trading controllers on `host` over `broker`; `ladderRender` makes the ladder widget capturable. */
export function mountTrading(
  host: TerminalHost,
  broker: PaperBroker,
  ladder: LadderModel,
  ladderRender?: RenderSource,
): MountedTrading {
  const routers = {
    orders: new RevisionRouter(),
    positions: new RevisionRouter(),
    risk: new RevisionRouter(),
    alerts: new RevisionRouter(),
    fx: new RevisionRouter(),
    depthLadder: new RevisionRouter(),
  };
  // Attempts dispatched before this broker existed cannot be judged by it.
  const startedAtMs = Date.now();
  const state = tradingState(broker);
  const mounts = [
    host.mount(SESSION, ordersController, ordersControls(broker, routers.orders), {
      reconcile: sinceBrokerStart(startedAtMs, ordersReconcile(broker)),
      state: state.orders,
    }),
    host.mount(SESSION, positionsController, positionsControls(broker), { state: state.positions }),
    host.mount(SESSION, riskController, riskControls(broker, routers.risk), {
      reconcile: sinceBrokerStart(startedAtMs, riskReconcile(broker)),
    }),
    host.mount(SESSION, alertsController, alertsControls(broker, routers.alerts), {
      reconcile: sinceBrokerStart(startedAtMs, alertsReconcile(broker)),
      state: state.alerts,
    }),
    host.mount(SESSION, fxController, fxControls(broker, routers.fx), {
      reconcile: sinceBrokerStart(startedAtMs, fxReconcile(broker)),
      state: state.fx,
    }),
  ];
  const widget = host.registerTarget(LADDER_TARGET, {
    label: 'Depth ladder',
    state: () => ({ symbol: ladder.symbol() }),
    ...(ladderRender ? { render: ladderRender } : {}),
  });
  mounts.push(
    host.mount(LADDER_TARGET, depthLadderController, depthLadderControls(broker, ladder, routers.depthLadder), {
      reconcile: sinceBrokerStart(startedAtMs, depthLadderReconcile(broker)),
    }),
  );
  const [orders, positions, risk, alerts, fx, depth] = mounts;
  routers.orders.attach(orders!.revisions);
  routers.positions.attach(positions!.revisions);
  routers.risk.attach(risk!.revisions);
  routers.alerts.attach(alerts!.revisions);
  routers.fx.attach(fx!.revisions);
  routers.depthLadder.attach(depth!.revisions);
  const stopBroker = broker.events.onChange((kind) => bumpFor(routers, kind));
  const stopLadder = ladder.onChange(() => routers.depthLadder.bump('ladder'));
  return {
    routers,
    unmount: () => {
      stopBroker();
      stopLadder();
      for (const mount of mounts) mount.unmount();
      widget.unregister();
    },
  };
}

/** Which domains a broker change moves. */
function bumpFor(routers: MountedTrading['routers'], kind: ChangeKind): void {
  switch (kind) {
    case 'orders':
      routers.orders.bump('orders');
      routers.depthLadder.bump('ladder');
      return;
    case 'positions':
      routers.positions.bump('positions');
      return;
    case 'alerts':
      routers.alerts.bump('alerts');
      return;
    case 'fx':
      routers.fx.bump('trades');
      return;
    case 'emergency':
      routers.risk.bump('emergency');
      return;
  }
}
